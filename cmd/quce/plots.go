package main

import (
	"fmt"
	"path/filepath"

	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/quce"
)

// writeExplainPlots writes, per instance, the paper's Figure 1 and the path plot, plus the
// exQUCE plot when there are several paths.
func writeExplainPlots(f *explainFlags, s *pipeline.Setup, ex []*quce.Explanation, idx []int) error {
	type picture struct {
		name string
		draw func(*quce.Explanation) ([]byte, error)
	}
	pictures := []picture{
		{"attribution", func(e *quce.Explanation) ([]byte, error) {
			return plots.Attribution(e, s.Data.Features, plots.Options{TopK: 15})
		}},
		{"path", func(e *quce.Explanation) ([]byte, error) {
			return plots.Path(e, s.Data.Features, s.Scaler, plots.Options{})
		}},
	}
	if len(ex) > 0 && len(ex[0].Paths) > 1 {
		pictures = append(pictures, picture{"paths", func(e *quce.Explanation) ([]byte, error) {
			return plots.Paths(e, s.Data.Features, plots.Options{TopK: 15})
		}})
	}
	var files []string
	var svgs [][]byte
	for i, e := range ex {
		for _, p := range pictures {
			svg, err := p.draw(e)
			if err != nil {
				return fmt.Errorf("plotting %s of %s row %d: %w", p.name, f.split, i, err)
			}
			files = append(files, filepath.Join(f.svgDir, fmt.Sprintf("%s-row%03d-data%04d-%s.svg", f.split, i, idx[i]+1, p.name)))
			svgs = append(svgs, svg)
		}
	}
	for _, path := range files {
		if err := f.checkOutput(path); err != nil {
			return err
		}
	}
	for k, path := range files {
		if err := writeOutput(path, svgs[k]); err != nil {
			return err
		}
	}
	f.logf("wrote %d plots into %s", len(files), f.svgDir)
	return nil
}
