print("millraced: not built yet")
