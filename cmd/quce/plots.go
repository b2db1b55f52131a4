package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/quce"
	"github.com/quce-go/quce/report"
)

// pictureFlags are the flags that shape the -svg pictures: their format and size.
type pictureFlags struct {
	format string
	size   string
}

// register adds -format and -size to fs.
func (p *pictureFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.format, "format", "svg", "format of the -svg pictures: svg, png or pdf")
	fs.StringVar(&p.size, "size", "", "size of the -svg pictures as WIDTHxHEIGHT, in inches unless a unit follows (cm, mm or pt): 7x5, 18x12cm; "+
		"a width alone (16cm) keeps the height fitted to the content (default: 7 in wide, fitted height)")
}

// options are the plot options the flags give, without the class names.
func (p *pictureFlags) options() (plots.Options, error) {
	var o plots.Options
	format, err := plots.ParseFormat(p.format)
	if err != nil {
		return o, fmt.Errorf("-format: %w", err)
	}
	o.Format = format
	if p.size != "" {
		if o.Width, o.Height, err = plots.ParseSize(p.size); err != nil {
			return o, fmt.Errorf("-size: %w", err)
		}
	}
	return o, nil
}

// picture is one kind of plot drawn per instance, given the paths of its map.
type picture struct {
	name string
	draw func(e *quce.Explanation, paths []plots.MapPath) ([]byte, error)
}

// explainPlots are the -svg files of quce explain: per instance, the paper's Figure 1, the
// path plot, the map of the paths over the training data (QUCE, IG's straight line, AGI,
// the further counterfactuals), the exQUCE plot when there are several paths, with -lambdas
// auto the front of the candidates (see plots.Front), and each further counterfactual's
// attribution and path. Files are named by the row's line and have the -format's extension:
// line42-attribution.svg, line42-map.svg (new-line3-attribution.svg for line 3 of
// -instances new.csv).
type explainPlots struct {
	pictures  []picture
	files     [][]string // per instance, per picture
	names     []string   // per instance, as the text names it
	threshold float64    // ϑ, for AGI's paths
	s         *pipeline.Setup
	logf      func(format string, args ...any)
}

// pictureNames are the kinds of picture drawn per instance, in order.
func (f *explainFlags) pictureNames() []string {
	names := []string{"attribution", "path", "map"}
	if f.paths > 1 {
		names = append(names, "paths")
	}
	if f.autoLambdas() {
		names = append(names, "front")
	}
	for k := 2; k <= f.counterfactuals; k++ { // drawn for the options found
		for _, pic := range optionPictures {
			names = append(names, fmt.Sprintf("option%d-%s", k, pic))
		}
	}
	return names
}

// optionPictures are drawn of each further counterfactual as of the first (the map has them all).
var optionPictures = []string{"attribution", "path"}

// svgFiles names the -svg files, per instance and picture (none without -svg), so that they
// are checked before any work.
func (f *explainFlags) svgFiles(sel *selection) ([][]string, error) {
	if f.svgDir == "" {
		return nil, nil
	}
	o, err := f.pictures.options()
	if err != nil {
		return nil, err
	}
	var files [][]string
	for _, p := range sel.picks {
		var names []string
		for _, pic := range f.pictureNames() {
			names = append(names, filepath.Join(f.svgDir, fmt.Sprintf("%s-%s%s", sel.svgPrefix(p), pic, o.Format.Ext())))
		}
		files = append(files, names)
	}
	return files, nil
}

// plotFiles prepares the drawing of the -svg files (from svgFiles).
func plotFiles(f *explainFlags, s *pipeline.Setup, sel *selection, files [][]string) (*explainPlots, error) {
	ep := &explainPlots{threshold: f.threshold, s: s, files: files, logf: f.logf}
	for _, p := range sel.picks {
		ep.names = append(ep.names, sel.name(p))
	}
	if f.svgDir == "" {
		return ep, nil
	}
	o, err := f.pictures.options()
	if err != nil {
		return nil, err
	}
	o.Classes = s.Data.Labels
	top := o
	top.TopK = 15
	draw := map[string]func(e *quce.Explanation, paths []plots.MapPath) ([]byte, error){
		"attribution": func(e *quce.Explanation, _ []plots.MapPath) ([]byte, error) {
			cols := s.Explainer.Columns()
			return plots.Attribution(e.ByColumn(cols), data.Labels(cols, e.XOriginal, e.Path0().CounterfactualOriginal), top)
		},
		"path": func(e *quce.Explanation, _ []plots.MapPath) ([]byte, error) {
			return plots.Path(e, s.Data.Features, s.Scaler, o)
		},
		"map": func(_ *quce.Explanation, paths []plots.MapPath) ([]byte, error) {
			return report.Map(s, paths, o)
		},
		"paths": func(e *quce.Explanation, _ []plots.MapPath) ([]byte, error) {
			return plots.Paths(e.ByColumn(s.Explainer.Columns()), data.Names(s.Explainer.Columns()), top)
		},
		"front": func(e *quce.Explanation, _ []plots.MapPath) ([]byte, error) {
			return plots.Front(e.Auto, o)
		},
	}
	for k := 2; k <= f.counterfactuals; k++ {
		for _, pic := range optionPictures {
			draw[fmt.Sprintf("option%d-%s", k, pic)] = func(e *quce.Explanation, _ []plots.MapPath) ([]byte, error) {
				if len(e.Counterfactuals) < k {
					return nil, nil // fewer options found: no picture
				}
				return draw[pic](report.OptionExplanation(e, e.Counterfactuals[k-1]), nil)
			}
		}
	}
	for _, name := range f.pictureNames() {
		ep.pictures = append(ep.pictures, picture{name, draw[name]})
	}
	return ep, nil
}

// draw renders every picture of every instance that was searched and did not fail (one
// already predicted as its target class has no path to draw: see
// quce.Explanation.AlreadyTarget; a failed one has no counterfactual or attribution, and the
// text says why). The maps need AGI's paths, which it finds for all those instances at once.
func (ep *explainPlots) draw(ctx context.Context, ex []*quce.Explanation) ([]output, error) {
	var drawn []int
	var exs []*quce.Explanation
	for i, e := range ex {
		if e.Path0().Failure != "" {
			ep.logf("no pictures for %s: it failed (see above)", ep.names[i])
			continue
		}
		if !e.AlreadyTarget {
			drawn, exs = append(drawn, i), append(exs, e)
		}
	}
	if len(ep.pictures) == 0 {
		return nil, nil
	}
	if len(drawn) == 0 {
		ep.logf("no pictures: no row has a path to draw (each is already its target class, or failed: see above)")
		return nil, nil
	}
	paths, err := report.MapPaths(ctx, ep.s, exs, ep.threshold)
	if err != nil {
		return nil, fmt.Errorf("AGI's paths for the maps: %w", err)
	}
	var outs []output
	for a, i := range drawn {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e := ex[i]
		for k, pic := range ep.pictures {
			b, err := pic.draw(e, paths[a])
			if err != nil {
				return nil, fmt.Errorf("plotting %s: %w", ep.files[i][k], err)
			}
			if b != nil {
				outs = append(outs, output{ep.files[i][k], b})
			}
		}
	}
	return outs, nil
}
