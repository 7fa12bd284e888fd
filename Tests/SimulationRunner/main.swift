import Foundation
import RelaySimulation

// relay-simulation: the delivery simulation of DeliverySimulationTests at a size only a release build
// runs in reasonable time (`make test` runs 10 000 messages each way). Prints the figures; exits 1
// with one line per broken promise.
//
//   relay-simulation [--messages N] [--seed S]
var settings = DeliverySimulation.Settings(seed: DeliverySimulation.Settings.suiteSeed, messages: 10_000)
var arguments = CommandLine.arguments.dropFirst()
while let option = arguments.popFirst() {
    guard let value = arguments.popFirst().flatMap(UInt64.init) else {
        FileHandle.standardError.write(Data("relay-simulation: \(option) wants a number\n".utf8))
        exit(64)
    }
    switch option {
    case "--messages": settings.messages = Int(value)
    case "--seed": settings.seed = value
    default:
        FileHandle.standardError.write(Data("relay-simulation: unknown option \(option)\n".utf8))
        exit(64)
    }
}
var simulation = DeliverySimulation(settings)
let report = simulation.run()
print(report.summary(settings))
let broken = report.brokenPromises(settings)
for promise in broken { print("FAIL: \(promise)") }
exit(broken.isEmpty ? 0 : 1)
