print("millctl: not built yet")
