package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/eval"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/quce"
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

// picture is one kind of plot drawn per instance.
type picture struct {
	name string
	draw func(e *quce.Explanation, agi *eval.AGIPath) ([]byte, error)
}

// explainPlots are the -svg files of quce explain: per instance, the paper's Figure 1, the
// path plot, the map of the paths over the training data (QUCE, IG's straight line and
// AGI), the exQUCE plot when there are several paths and, with -lambdas auto, the front of
// the candidates (see plots.Front). Files are named by the row's line
// and have the -format's extension: line42-attribution.svg, line42-map.svg
// (new-line3-attribution.svg for line 3 of -instances new.csv).
type explainPlots struct {
	pictures  []picture
	files     [][]string // per instance, per picture
	names     []string   // per instance, as the text names it
	threshold float64    // ϑ, for AGI's paths
	s         *pipeline.Setup
	logf      func(format string, args ...any)
}

// plotFiles names the -svg files and checks them before any work (an existing file needs
// -force).
func plotFiles(f *explainFlags, s *pipeline.Setup, sel *selection) (*explainPlots, error) {
	ep := &explainPlots{threshold: f.threshold, s: s, logf: f.logf}
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
	labels := s.Data.Subset(s.TrainIdx).Y
	ep.pictures = []picture{
		{"attribution", func(e *quce.Explanation, _ *eval.AGIPath) ([]byte, error) {
			cols := s.Explainer.Columns()
			return plots.Attribution(e.ByColumn(cols), data.Labels(cols, e.XOriginal, e.Path0().CounterfactualOriginal), top)
		}},
		{"path", func(e *quce.Explanation, _ *eval.AGIPath) ([]byte, error) {
			return plots.Path(e, s.Data.Features, s.Scaler, o)
		}},
		{"map", func(e *quce.Explanation, agi *eval.AGIPath) ([]byte, error) {
			paths := plots.ExplanationPaths(e)
			if agi != nil {
				paths = append(paths, plots.MapPath{Method: "agi", Points: agi.Points})
			}
			return plots.Map(s.XTrain, labels, paths, o)
		}},
	}
	if f.paths > 1 {
		ep.pictures = append(ep.pictures, picture{"paths", func(e *quce.Explanation, _ *eval.AGIPath) ([]byte, error) {
			return plots.Paths(e.ByColumn(s.Explainer.Columns()), data.Names(s.Explainer.Columns()), top)
		}})
	}
	if f.autoLambdas() {
		ep.pictures = append(ep.pictures, picture{"front", func(e *quce.Explanation, _ *eval.AGIPath) ([]byte, error) {
			return plots.Front(e.Auto, o)
		}})
	}
	for _, p := range sel.picks {
		var names []string
		for _, pic := range ep.pictures {
			path := filepath.Join(f.svgDir, fmt.Sprintf("%s-%s%s", sel.svgPrefix(p), pic.name, o.Format.Ext()))
			if err := f.checkOutput("-svg", path); err != nil {
				return nil, err
			}
			names = append(names, path)
		}
		ep.files = append(ep.files, names)
		ep.names = append(ep.names, sel.name(p))
	}
	return ep, nil
}

// draw renders every picture of every instance whose search did not fail. The maps need
// AGI's paths, which it finds for all instances at once.
func (ep *explainPlots) draw(ctx context.Context, ex []*quce.Explanation) ([]output, error) {
	if len(ep.pictures) == 0 || len(ex) == 0 {
		return nil, nil
	}
	xs, targets := make([][]float64, len(ex)), make([]int, len(ex))
	for i, e := range ex {
		xs[i], targets[i] = e.X, e.Target
	}
	agi, err := eval.RunAGI(ctx, ep.s.Backend, ep.s.Explainer.Classifier(), xs, targets, eval.DefaultAGIConfig(), ep.threshold)
	if err != nil {
		return nil, fmt.Errorf("AGI's paths for the maps: %w", err)
	}
	var outs []output
	for i, e := range ex {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if p := e.Path0(); p.Failure != "" {
			// A failed row has no counterfactual or attribution to draw; the text says why.
			ep.logf("no pictures for %s: it failed (see above)", ep.names[i])
			continue
		}
		for k, pic := range ep.pictures {
			b, err := pic.draw(e, agi[i])
			if err != nil {
				return nil, fmt.Errorf("plotting %s: %w", ep.files[i][k], err)
			}
			outs = append(outs, output{ep.files[i][k], b})
		}
	}
	return outs, nil
}
