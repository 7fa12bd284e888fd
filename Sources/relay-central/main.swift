import Shared
print("relay-central: not implemented yet")
