package eval

import (
	"fmt"

	"github.com/gomlx/compute"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
)

// Data is what an evaluation runs on: an explainer (the classifier and the VAE), the
// instances of each split, and per row of the data set its label, its values as read and its
// line, so that every result names its row as the command-line tool does.
type Data struct {
	Name      string          // the data set's name (the embedded W-BC's shows the paper's figures)
	Classes   []string        // the class labels, in the model's order
	Explainer *quce.Explainer // the classifier and the VAE of every method
	Backend   compute.Backend // the explainer's backend, where the baselines build their graphs
	// BackendName describes the backend in the report.
	BackendName string
	Train, Test Split
	// Per row of the data set (Split.Rows index these): the data's label, the row in the
	// data's units as read (quce.Query.Original) and its line in its CSV file.
	Labels    []int
	Originals [][]float64
	Lines     []int
	// SplitBy says what gave the split, a user's (data.Partition.By: with two files, each
	// split's Lines are of its own file); "" for the seeded split.
	SplitBy string
	// WithPlausibility gives a configuration with automatic λ or sparsity its plausibility
	// bound at a quantile of the training rows' L_ε (see pipeline.Setup.WithPlausibility).
	WithPlausibility func(cfg quce.Config, q float64) (quce.Config, error)

	err error // why FromSetup could not fill Data in, returned by Run
}

// Split is one split's instances.
type Split struct {
	X    [][]float64 // standardised rows
	Rows []int       // their rows in the data set (0-based)
}

// FromSetup is the Data of a prepared setup. A setup it cannot read (no trained models, a
// CSV file whose lines cannot be numbered) gives a Data that Run refuses with the reason.
// (It lives here, not as a method of pipeline.Setup, because eval's own tests prepare their
// setups through pipeline.)
func FromSetup(s *pipeline.Setup) Data {
	if s == nil || s.Explainer == nil || s.Model == nil {
		return Data{err: fmt.Errorf("eval: the setup has no trained models; fix: prepare it with pipeline.Prepare")}
	}
	lines, err := pipeline.Lines(s.Data)
	return Data{
		Name: s.Data.Name, Classes: s.Data.Labels, Explainer: s.Explainer,
		Backend: s.Backend, BackendName: s.BackendInfo.String(),
		Train: Split{X: s.XTrain, Rows: s.TrainIdx}, Test: Split{X: s.XTest, Rows: s.TestIdx},
		Labels: s.Data.Y, Originals: s.Data.X, Lines: lines,
		SplitBy:          splitBy(s.Options.Split),
		WithPlausibility: s.WithPlausibility,
		err:              err,
	}
}

// splitBy says what gives the user's split p ("" for the seeded split).
func splitBy(p *data.Partition) string {
	if p == nil {
		return ""
	}
	return p.By
}

// check reports what makes d unusable.
func (d Data) check() error {
	if d.err != nil {
		return d.err
	}
	if d.Explainer == nil || d.Backend == nil || d.WithPlausibility == nil {
		return fmt.Errorf("eval: the data have no explainer, backend or plausibility bound; fix: build them with FromSetup")
	}
	n := len(d.Labels)
	if len(d.Originals) != n || len(d.Lines) != n {
		return fmt.Errorf("eval: %d labels, %d rows as read and %d lines; fix: give one of each per row of the data set", n, len(d.Originals), len(d.Lines))
	}
	for _, sp := range []Split{d.Train, d.Test} {
		if len(sp.X) != len(sp.Rows) {
			return fmt.Errorf("eval: a split has %d rows and %d row numbers; fix: give one number per row", len(sp.X), len(sp.Rows))
		}
		for _, r := range sp.Rows {
			if r < 0 || r >= n {
				return fmt.Errorf("eval: a split names row %d of a data set of %d rows", r, n)
			}
		}
	}
	return nil
}

// split is the named split's instances.
func (d Data) split(name string) Split {
	if name == Test {
		return d.Test
	}
	return d.Train
}
