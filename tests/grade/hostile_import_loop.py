# hostile: never finishes importing
while True:
    pass
