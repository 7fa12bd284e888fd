import Shared
print("relay-peripheral: not implemented yet")
