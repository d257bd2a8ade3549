import FirestoreTesting

extension ReplayTransport.Options {
    /// These options with the hint of a played-out request naming the command line's option,
    /// `--allow-playback-repeats`, instead of the Swift property.
    func namingTheCommandLineOption() -> Self {
        var options = self
        options.allowPlaybackRepeatsName = "--allow-playback-repeats"
        return options
    }
}
