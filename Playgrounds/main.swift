print("Playground")
