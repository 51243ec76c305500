import Testing

extension Tag {
    /// Tests that run another program (mandoc).
    @Tag static var spawnsProcess: Self
}
