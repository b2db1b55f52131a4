package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
)

// csvLine builds lines of a CSV file byte for byte as encoding/csv's Writer writes them, for
// tables of millions of lines (-csv of a streamed job: a W-BC row is 30 lines). A text field
// goes through a csv.Writer once and its encoding is kept, since a table's texts repeat (the
// file, the split, the column names, the levels, the labels); a number, which never needs
// quotes, is appended as it is formatted. A Writer scans every field of every line for
// characters to quote, and each number formatted as a string was an allocation.
type csvLine struct {
	buf     []byte            // the lines so far
	start   bool              // no field yet on the current line
	scratch []byte            // what fields returned last
	texts   map[string][]byte // encoded texts
	enc     bytes.Buffer
	w       *csv.Writer // writes to enc
}

func newCSVLine() *csvLine {
	l := &csvLine{start: true, texts: map[string][]byte{}}
	l.w = csv.NewWriter(&l.enc)
	return l
}

// sep starts a field.
func (l *csvLine) sep() {
	if !l.start {
		l.buf = append(l.buf, ',')
	}
	l.start = false
}

// text appends s as encoding/csv writes a field.
func (l *csvLine) text(s string) {
	l.sep()
	l.buf = append(l.buf, l.encoded(s)...)
}

// encoded is s as a csv.Writer writes it as one field.
func (l *csvLine) encoded(s string) []byte {
	if b, ok := l.texts[s]; ok {
		return b
	}
	l.enc.Reset()
	_ = l.w.Write([]string{s}) // into a bytes.Buffer: no error
	l.w.Flush()
	b := bytes.Clone(bytes.TrimSuffix(l.enc.Bytes(), []byte("\n")))
	if len(l.texts) < 1<<16 { // a table's texts repeat; a text field of every row's own would not
		l.texts[s] = b
	}
	return b
}

// num appends v in full precision, or NA when it is not finite.
func (l *csvLine) num(v float64) {
	l.sep()
	if math.IsNaN(v) || math.IsInf(v, 0) {
		l.buf = append(l.buf, "NA"...)
		return
	}
	l.buf = strconv.AppendFloat(l.buf, v, 'g', -1, 64)
}

func (l *csvLine) int(n int) {
	l.sep()
	l.buf = strconv.AppendInt(l.buf, int64(n), 10)
}

func (l *csvLine) bool(b bool) {
	l.sep()
	l.buf = strconv.AppendBool(l.buf, b)
}

// raw appends fields already encoded (what fields returns).
func (l *csvLine) raw(b []byte) {
	l.sep()
	l.buf = append(l.buf, b...)
}

// fields returns the encoding of the fields add appends, comma-separated, for raw: a row's
// own fields, the same on each of its columns' lines, encoded once. It is valid until the
// next call.
func (l *csvLine) fields(add func()) []byte {
	buf, start := l.buf, l.start
	l.buf, l.start = l.scratch[:0], true
	add()
	out := l.buf
	l.scratch = out
	l.buf, l.start = buf, start
	return out
}

// end ends the line.
func (l *csvLine) end() {
	l.buf = append(l.buf, '\n')
	l.start = true
}
