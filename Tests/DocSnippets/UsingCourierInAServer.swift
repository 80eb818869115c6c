// The context of UsingCourierInAServer.md's ```swift blocks (scripts/check-doc-snippets): what they use without
// declaring it. Hummingbird's and Vapor's glue is not compiled here (the checker builds neither framework).
import Courier
import CourierAsyncHTTPClient
import Foundation
import Logging

/// The gateway's logger.
let logger = Logger(label: "gateway")
