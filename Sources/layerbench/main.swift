import AsyncLayer
print("todo")
