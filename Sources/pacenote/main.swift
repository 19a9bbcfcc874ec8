print("pacenote")
