package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/atomicfile"
	"github.com/quce-go/quce/quce"
	"github.com/quce-go/quce/report"
)

// streamChunk is the instances explained at a time when the results are streamed: 0 is
// the library's default (quce.Explainer.ExplainStream with chunk 0); the tests make it small.
var streamChunk = 0

// streamCSV is explain when only -csv to a file is asked: the rows are explained chunk by
// chunk (quce.Explainer.ExplainStream) and each chunk's text and table rows are written as
// it comes, the table into the staged copy of the -csv file, so that a file of any length
// is explained in the memory of one chunk, without paths (the table has none). The file is
// still written all or nothing: it replaces its destination only once every row is in it,
// and not at all if every row failed, the run was stopped or a chunk failed.
func (f *explainFlags) streamCSV(ctx context.Context, stdout io.Writer) (err error) {
	var (
		staged *atomicfile.Staged
		// While no row has succeeded: how many failed, and the first (the error names it;
		// the others are not kept, so that a long run of failures takes no memory).
		failed      int
		firstFailed *quce.Explanation
		ok          bool // a row succeeded
		// The text and the table of each chunk are formatted on every core.
		text, table rowWriter
	)
	defer func() {
		if err != nil && staged != nil {
			staged.Abort()
		}
	}()
	f.emit = func(r *explained, first int, ex []*quce.Explanation) error {
		part := *r.sel
		part.picks = part.picks[first : first+len(ex)]
		if first == 0 {
			fmt.Fprint(r.report, modelHeader(&f.common, r.s))
			if f.top > 0 {
				fmt.Fprintln(r.report, report.Legend)
			}
			var err error
			if staged, err = atomicfile.Stage(f.csvPath); err != nil {
				return err
			}
			if err := report.WriteCSVHeader(staged); err != nil {
				return err
			}
		}
		// Each chunk's views, text and table rows are made on every core (a million W-BC rows
		// make 10 GB of table), and written a part at a time: the views with the text, so
		// that the table finds them all made.
		ins := make([]*report.Instance, len(ex))
		// The text report's write errors are not checked, as its Fprintf calls' are not: the
		// table is the output.
		_ = text.write(r.report, len(ex), func(w io.Writer, lo, hi int) error {
			sub := part
			sub.picks = part.picks[lo:hi]
			copy(ins[lo:hi], instances(r.s, ex[lo:hi], &sub))
			report.WriteText(w, ins[lo:hi], f.top)
			return nil
		})
		if err := table.write(staged, len(ex), func(w io.Writer, lo, hi int) error {
			return report.WriteCSVLines(w, ins[lo:hi])
		}); err != nil {
			return err
		}
		if !ok {
			if ok = quce.NoneSucceeded(ex) == nil; !ok {
				if failed == 0 {
					firstFailed = ex[0]
				}
				failed += len(ex)
			}
		}
		return nil
	}
	if _, err := f.explainRows(ctx, stdout, func(*data.Dataset, *selection, quce.Constraints) ([]string, error) { return nil, nil }); err != nil {
		return err
	}
	// When every row failed there is nothing to write: the text above says why.
	if !ok {
		return nothingWritten(quce.AllFailed(failed, firstFailed))
	}
	s := staged
	staged = nil // the batch removes it if it cannot be written
	return f.write(stdout, nil, 0, s)
}

// rowWriter writes rows formatted on every core: contiguous parts of them, each into a
// buffer of its own (kept from one call to the next, so that a stream of chunks reuses
// them), written in order, so that the output is the same bytes as from one format of all
// the rows.
type rowWriter struct{ bufs []bytes.Buffer }

// write writes n rows to w, format(b, lo, hi) writing rows lo to hi − 1 to b.
func (rw *rowWriter) write(w io.Writer, n int, format func(b io.Writer, lo, hi int) error) error {
	parts := max(1, min(n, runtime.GOMAXPROCS(0)))
	if len(rw.bufs) < parts {
		rw.bufs = make([]bytes.Buffer, parts)
	}
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := range parts {
		rw.bufs[p].Reset()
		wg.Go(func() { errs[p] = format(&rw.bufs[p], p*n/parts, (p+1)*n/parts) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for p := range parts {
		if _, err := w.Write(rw.bufs[p].Bytes()); err != nil {
			return err
		}
	}
	return nil
}
