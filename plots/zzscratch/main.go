// Scratch: real-data pictures for looking at; not part of the package.
package main

import (
	"context"
	"log"
	"os"
	"path/filepath"

	"github.com/quce-go/quce/eval"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/quce"
)

func main() {
	out := os.Args[1]
	s, err := pipeline.Prepare(pipeline.Options{CacheDir: pipeline.DefaultCacheDir()})
	if err != nil {
		log.Fatal(err)
	}
	cfg := quce.DefaultConfig()
	cfg.Paths = 8
	var qs []quce.Query
	for _, r := range s.XTest[:3] {
		qs = append(qs, quce.NewQuery(r))
	}
	exs, err := s.Explainer.Explain(context.Background(), cfg, qs)
	if err != nil {
		log.Fatal(err)
	}
	o := opts(s)
	for i, ex := range exs {
		write := func(name string, b []byte, err error) {
			if err != nil {
				log.Fatal(name, err)
			}
			os.WriteFile(filepath.Join(out, name+string(rune('0'+i))+".svg"), b, 0o644)
		}
		o.TopK = 15
		b, err := plots.Attribution(ex, s.Data.Features, o)
		write("attr", b, err)
		b, err = plots.Paths(ex, s.Data.Features, o)
		write("paths", b, err)
		o.TopK = 0
		b, err = plots.Path(ex, s.Data.Features, s.Scaler, o)
		write("path", b, err)
		paths := mapPaths(ex)
		agi, err := eval.RunAGI(context.Background(), s.Backend, s.Explainer.Classifier(), [][]float64{ex.X}, []int{ex.Target}, eval.DefaultAGIConfig(), 0.5)
		if err != nil {
			log.Fatal(err)
		}
		paths = append(paths, plots.MapPath{Method: "agi", Points: agi[0].Points})
		train := s.Data.Subset(s.TrainIdx)
		b, err = plots.Map(s.XTrain, train.Y, paths, o)
		write("map", b, err)
	}
}
