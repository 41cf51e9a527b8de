# shellcheck shell=sh
# grade_env.sh - sourced by the grader's suites (after tests/python3.sh), which start the
# grader a dozen times: finds once what every grader run would find again, and exports it.
#   ATT_PYTHON           the interpreter with NumPy (each run still imports NumPy in it once)
#   ATT_GRADE_SANDBOX_OK the grader's sandbox_key when its sandbox runs that interpreter here:
#                        a run then skips its trial sandbox (0.11 s of CPU); a run given
#                        another bwrap (ATT_GRADE_BWRAP) tries its own. Empty when the sandbox
#                        fails here: each run then tries, and says why.
#   GRADE_SUITE=test_grade . tests/grade_env.sh
found=$(ATT_GRADE_SANDBOX_OK= "$PY" -S -c 'import sys
sys.path.insert(0, "exercises")
import grade
python, _, dirs = grade.find_python()
print(python)
print(grade.sandbox_key(python, grade.SANDBOX_PROC[0]) if grade.sandbox_problem(python, dirs) is None else "")') ||
    { echo "$GRADE_SUITE: no Python with NumPy (apt-get install python3-numpy)" >&2; exit 1; }
ATT_PYTHON=$(echo "$found" | sed -n 1p)
ATT_GRADE_SANDBOX_OK=$(echo "$found" | sed -n 2p)
export ATT_PYTHON ATT_GRADE_SANDBOX_OK
