package main

import (
	"fmt"
	"path/filepath"

	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/quce"
)

// picture is one kind of plot drawn per instance.
type picture struct {
	name string
	draw func(*quce.Explanation) ([]byte, error)
}

// explainPlots are the -svg files of quce explain: per instance, the paper's Figure 1 and
// the path plot, plus the exQUCE plot when there are several paths. Files are named by the
// row's line: line42-attribution.svg (new-line3-attribution.svg for line 3 of
// -instances new.csv).
type explainPlots struct {
	pictures []picture
	files    [][]string // per instance, per picture
}

// plotFiles names the -svg files and checks them before any work (an existing file needs
// -force).
func plotFiles(f *explainFlags, s *pipeline.Setup, sel *selection) (*explainPlots, error) {
	ep := &explainPlots{}
	if f.svgDir == "" {
		return ep, nil
	}
	ep.pictures = []picture{
		{"attribution", func(e *quce.Explanation) ([]byte, error) {
			return plots.Attribution(e, s.Data.Features, plots.Options{TopK: 15})
		}},
		{"path", func(e *quce.Explanation) ([]byte, error) {
			return plots.Path(e, s.Data.Features, s.Scaler, plots.Options{})
		}},
	}
	if f.paths > 1 {
		ep.pictures = append(ep.pictures, picture{"paths", func(e *quce.Explanation) ([]byte, error) {
			return plots.Paths(e, s.Data.Features, plots.Options{TopK: 15})
		}})
	}
	for _, p := range sel.picks {
		var names []string
		for _, pic := range ep.pictures {
			path := filepath.Join(f.svgDir, fmt.Sprintf("%s-%s.svg", sel.svgPrefix(p), pic.name))
			if err := f.checkOutput("-svg", path); err != nil {
				return nil, err
			}
			names = append(names, path)
		}
		ep.files = append(ep.files, names)
	}
	return ep, nil
}

// draw renders every picture of every instance.
func (ep *explainPlots) draw(ex []*quce.Explanation) ([]output, error) {
	var outs []output
	for i, e := range ex {
		for k, pic := range ep.pictures {
			svg, err := pic.draw(e)
			if err != nil {
				return nil, fmt.Errorf("plotting %s: %w", ep.files[i][k], err)
			}
			outs = append(outs, output{ep.files[i][k], svg})
		}
	}
	return outs, nil
}
