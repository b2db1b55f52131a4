package gonbext

// Must returns v, or stops the cell with err's message when err is not nil. A notebook cell
// has nowhere to return an error to, so the helpers' errors end the cell instead:
//
//	s := gonbext.Must(gonbext.Prepare(pipeline.Options{}))
//
// The error shows as the cell's error output (and fails a headless run of the notebook).
func Must[T any](v T, err error) T {
	Check(err)
	return v
}

// Check stops the cell with err's message when err is not nil (see Must):
//
//	gonbext.Check(gonbext.ShowExplanation(s, ex[0]))
func Check(err error) {
	if err != nil {
		panic(err)
	}
}
