package data

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error describes a problem with input data: where it is (file, 1-based
// physical line, column name), the offending value, what is wrong and how
// to fix it. Zero-valued fields are omitted from the message. Every input
// problem reported by this package is an *Error.
type Error struct {
	File    string // file path or the name passed to Parse
	Line    int    // 1-based physical line; 0 if not applicable
	Column  string // column name; "" if not applicable
	Value   string // offending cell text (truncated if very long); "" if none
	Problem string // what is wrong
	Fix     string // how to fix it

	err error // underlying error, if any (see Unwrap)
}

// maxValueLen is the longest cell text (in runes) kept in Error.Value.
const maxValueLen = 80

// Error formats the error, e.g.
//
//	data.csv line 7, column "mean_radius": value "NA" stands for a missing value; fix: fill in the missing value, or -drop-missing drops such rows (or -ignore mean_radius leaves out a column that is mostly empty)
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
	}
	if e.Line > 0 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(e.Line))
	}
	if e.Column != "" {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString("column ")
		b.WriteString(strconv.Quote(e.Column))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Value != "" {
		b.WriteString("value ")
		b.WriteString(strconv.Quote(e.Value))
		b.WriteByte(' ')
	}
	if e.Problem != "" {
		b.WriteString(e.Problem)
	} else {
		b.WriteString("invalid data")
	}
	if e.Fix != "" {
		b.WriteString("; fix: ")
		b.WriteString(e.Fix)
	}
	return b.String()
}

// Unwrap returns the underlying error (for example the *fs.PathError of a
// missing file), so errors.Is(err, fs.ErrNotExist) works.
func (e *Error) Unwrap() error { return e.err }

// clip shortens s to at most maxValueLen runes, marking the cut with "...".
func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxValueLen {
		return s
	}
	n := 0
	for i := range s {
		if n == maxValueLen {
			return s[:i] + "..."
		}
		n++
	}
	return s
}
