package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/atomicfile"
	"github.com/quce-go/quce/quce"
)

// streamChunk is the instances explained at a time when the results are streamed: 0 is
// the library's default (quce.Explainer.StreamChunk); the tests make it small.
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
		table  *csv.Writer
		// While no row has succeeded: how many failed, and the first (the error names it;
		// the others are not kept, so that a long run of failures takes no memory).
		failed      int
		firstFailed *quce.Explanation
		ok          bool // a row succeeded
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
				fmt.Fprintln(r.report, legend)
			}
			var err error
			if staged, err = atomicfile.Stage(f.csvPath); err != nil {
				return err
			}
			table = csv.NewWriter(staged)
			if err := table.Write(csvColumns); err != nil {
				return err
			}
		}
		printRows(r.report, r.s, ex, &part, f.top)
		if err := writeCSVRows(table, r.s, ex, &part); err != nil {
			return err
		}
		table.Flush()
		if !ok {
			if ok = quce.NoneSucceeded(ex) == nil; !ok {
				if failed == 0 {
					firstFailed = ex[0]
				}
				failed += len(ex)
			}
		}
		return table.Error()
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
