# shellcheck shell=sh
# grade_env.sh - sourced by the grader's suites (after tests/python3.sh), which start the
# grader a dozen times: finds once what every grader run would find again, and exports it.
#   ATT_PYTHON           the interpreter with NumPy
#   ATT_PYTHON_FOUND     what the grader's find_python says of it (JSON): a run then skips its
#                        trial import of NumPy (0.1 s of CPU)
#   ATT_GRADE_SANDBOX_OK the grader's sandbox_key when its sandbox runs that interpreter here:
#                        a run then skips its trial sandbox (0.11 s of CPU); a run given
#                        another bwrap (ATT_GRADE_BWRAP) tries its own. Empty when the sandbox
#                        fails here: each run then tries, and says why.
#   GRADE_SUITE=test_grade . tests/grade_env.sh
found=$(ATT_GRADE_SANDBOX_OK='' ATT_PYTHON_FOUND='' "$PY" -S -c 'import json, sys
sys.path.insert(0, "exercises")
import grade
python, version, dirs = grade.find_python()
print(python)
print(json.dumps([python, version, dirs]))
print(grade.sandbox_key(python, grade.SANDBOX_PROC[0]) if grade.sandbox_problem(python, dirs) is None else "")') ||
    { echo "$GRADE_SUITE: no Python with NumPy (apt-get install python3-numpy)" >&2; exit 1; }
ATT_PYTHON=$(echo "$found" | sed -n 1p)
ATT_PYTHON_FOUND=$(echo "$found" | sed -n 2p)
ATT_GRADE_SANDBOX_OK=$(echo "$found" | sed -n 3p)
export ATT_PYTHON ATT_PYTHON_FOUND ATT_GRADE_SANDBOX_OK
