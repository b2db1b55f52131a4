package data

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
)

// TestLoadLarge loads a generated 100000-row file and checks that the bytes
// allocated stay proportional to the data (no buffering of the whole file
// as strings or records).
func TestLoadLarge(t *testing.T) {
	const rows, nf = 100000, 10
	path := filepath.Join(t.TempDir(), "large.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for j := 0; j < nf; j++ {
		w.WriteString("f" + strconv.Itoa(j) + ",")
	}
	w.WriteString("label\r\n")
	r := splitMix64{s: 1}
	ones := 0
	for i := 0; i < rows; i++ {
		for j := 0; j < nf; j++ {
			v := float64(r.next()>>11)/(1<<53)*200 - 100
			w.WriteString(strconv.FormatFloat(v, 'f', 4, 64))
			w.WriteByte(',')
		}
		if i%3 == 0 {
			w.WriteString("pos\r\n")
			ones++
		} else {
			w.WriteString("neg\r\n")
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d, err := Load(path, LoadOptions{})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows() != rows || d.NumFeatures() != nf || !slices.Equal(d.Labels, []string{"neg", "pos"}) {
		t.Fatalf("got %dx%d labels %q", d.Rows(), d.NumFeatures(), d.Labels)
	}
	n1 := 0
	for _, y := range d.Y {
		n1 += y
	}
	if n1 != ones {
		t.Errorf("got %d positive rows, want %d", n1, ones)
	}
	dataBytes := uint64(rows*nf*8 + rows*(24+8)) // values, row headers, labels
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("file %d bytes, data %d bytes, allocated %d bytes", fi.Size(), dataBytes, alloc)
	if limit := 2*uint64(fi.Size()) + 3*dataBytes; alloc > limit {
		t.Errorf("allocated %d bytes loading a %d-byte file, want at most %d", alloc, fi.Size(), limit)
	}
}

// BenchmarkParse measures Parse on a generated 20000-row, 10-feature file
// with a two-class target (the common case).
func BenchmarkParse(b *testing.B) {
	const rows, nf = 20000, 10
	var buf bytes.Buffer
	for j := 0; j < nf; j++ {
		buf.WriteString("f" + strconv.Itoa(j) + ",")
	}
	buf.WriteString("label\n")
	r := splitMix64{s: 1}
	for i := 0; i < rows; i++ {
		for j := 0; j < nf; j++ {
			v := float64(r.next()>>11)/(1<<53)*200 - 100
			buf.WriteString(strconv.FormatFloat(v, 'f', 4, 64))
			buf.WriteByte(',')
		}
		if i%3 == 0 {
			buf.WriteString("pos\n")
		} else {
			buf.WriteString("neg\n")
		}
	}
	in := buf.Bytes()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := Parse(bytes.NewReader(in), "bench.csv", LoadOptions{})
		if err != nil || d.Rows() != rows {
			b.Fatal(err)
		}
	}
}
