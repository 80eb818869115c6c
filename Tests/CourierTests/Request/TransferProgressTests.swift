import Courier
import Foundation
import Testing

@Suite struct TransferProgressTests {
    @Test func readersSeeTheLatestFiguresAndTheEnd() async throws {
        // GIVEN a progress with some bytes received
        let progress = TransferProgress()
        progress.reportReceived(10, expected: 100)
        // WHEN a reader starts, more arrive, and the call ends
        var iterator = progress.makeAsyncIterator()
        let first = await iterator.next()
        progress.reportReceived(100, expected: 100)
        progress.finish()
        var last = first
        while let snapshot = await iterator.next() { last = snapshot }
        // THEN the reader saw the first figures, then the final ones, and the sequence ended
        #expect(first?.received == 10)
        #expect(first?.fractionCompleted == 0.1)
        #expect(last?.received == 100)
        #expect(last?.isFinished == true)
        #expect(last?.fractionCompleted == 1)
    }

    @Test func aReaderAfterTheEndGetsTheFinalFiguresOnly() async {
        let progress = TransferProgress()
        progress.reportSent(5, expected: 5)
        progress.finish()
        progress.reportSent(7, expected: nil)  // ignored after the end
        var all: [TransferProgress.Snapshot] = []
        for await snapshot in progress { all.append(snapshot) }
        #expect(all == [TransferProgress.Snapshot(sent: 5, expectedToSend: 5, isFinished: true)])
    }

    @Test func fractionIsUnknownWithoutATotal() {
        #expect(TransferProgress.Snapshot(received: 10).fractionCompleted == nil)
        #expect(TransferProgress.Snapshot(sent: 3, expectedToSend: 4).fractionCompleted == 0.75)
        #expect(TransferProgress.Snapshot(received: 10, isFinished: true).fractionCompleted == 1)
    }

    @Test func limitationNamesTheExecutorAndTheFeatures() {
        struct Plain: APIExecutor {
            func execute(_ request: APIRequest) async throws -> APIResponse {
                APIResponse(statusCode: 200, request: request)
            }
        }
        #expect(Plain().supportedTransfers == [])
        let limitation = ExecutorLimitation(executor: Plain(), missing: [.fileResponses, .progress])
        #expect(limitation.description.hasPrefix("Plain does not support file responses (downloads), progress"))
    }
}
