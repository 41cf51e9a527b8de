# hostile: runs the reference solutions from the repository (the test writes @ROOT@)
exec(open("@ROOT@/exercises/solutions/section_4_2.py").read())
