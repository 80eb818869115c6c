// The fixture of `scripts/instructions --self-test`: an operation whose cost the check's own test controls.
//
//   fixture build.fixture.courier N   N operations of 10,000 steps
//   fixture build.fixture.slower N    N operations of 10,500 steps: 5% more work, which the check must catch
//   fixture build.fixture.within N    N operations of 10,150 steps: 1.5% more, within the check's tolerance
import Foundation

let arguments = CommandLine.arguments
let name = arguments.count > 1 ? arguments[1] : ""
let steps = name.hasSuffix(".slower") ? 10_500 : name.hasSuffix(".within") ? 10_150 : 10_000
let operations = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 0
var state: UInt64 = UInt64(arguments.count)
for _ in 0..<operations {
    for step in 0..<steps {
        // A step the optimizer cannot fold away: each depends on the last.
        state = state &* 6_364_136_223_846_793_005 &+ UInt64(step)
    }
}
print("checksum \(state)")
