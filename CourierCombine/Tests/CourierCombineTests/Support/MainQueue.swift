import Foundation

#if canImport(Combine)
    import Combine

    /// The main queue as a Combine scheduler.
    var mainQueue: DispatchQueue { .main }
#else
    import OpenCombineDispatch

    /// The main queue as an OpenCombine scheduler (OpenCombineDispatch spells it `DispatchQueue.main.ocombine`).
    var mainQueue: DispatchQueue.OCombine { DispatchQueue.main.ocombine }
#endif
