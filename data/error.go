package data

import (
	"fmt"
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
//	data.csv line 7, column "mean_radius": value "NA" stands for a missing value; fix: fill in the missing value, or LoadOptions.DropMissing drops such rows (or LoadOptions.Ignore mean_radius leaves out a column that is mostly empty)
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

// CheckText reports text whose bytes are not UTF-8 (a file saved as Latin-1 or
// Windows-1252, say), which would otherwise be read with each such byte turned into U+FFFD
// and shown as "�": an *Error with Value, Problem and Fix, for the caller to fill in File,
// Line and Column. It returns nil for UTF-8 text.
func CheckText(s string) *Error {
	if utf8.ValidString(s) {
		return nil
	}
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		i += n
	}
	return &Error{
		Value:   clip(s),
		Problem: fmt.Sprintf("is not UTF-8 text (byte 0x%02X at byte %d)", s[i], i+1),
		Fix:     `save the file as UTF-8, e.g. iconv -f latin1 -t utf-8 FILE > FILE-utf8.csv (latin1, or the encoding the file was written in; in Excel, save as "CSV UTF-8")`,
	}
}
