package data_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/quce-go/quce/data"
)

func ExampleWBC() {
	d := data.WBC()
	train, test, err := data.Split(d, 0.2, 42)
	if err != nil {
		panic(err)
	}
	tr := d.Subset(train)
	s := data.FitScaler(tr.X) // fit on training rows only
	x := s.Transform(tr.X)
	fmt.Println(d.Name, d.Rows(), "x", d.NumFeatures())
	fmt.Println("features:", d.Features[0], "...", d.Features[d.NumFeatures()-1])
	fmt.Println("labels:", d.Labels, "target:", d.Target)
	fmt.Println("train/test:", len(train), len(test))
	fmt.Println("scaled rows:", len(x))
	// Output:
	// wbc (embedded) 569 x 30
	// features: mean_radius ... worst_fractal_dimension
	// labels: [malignant benign] target: target
	// train/test: 455 114
	// scaled rows: 455
}

func ExampleLoad() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tumours.csv")
	csv := "radius, texture ,diagnosis\r\n\"17.99\",10.38,M\r\n13.54,14.36,B\r\n\r\n"
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		panic(err)
	}
	d, err := data.Load(path, data.LoadOptions{Target: "diagnosis"})
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Features, d.X, d.Y)
	fmt.Printf("0 = %s, 1 = %s\n", d.Labels[0], d.Labels[1])
	// Output:
	// [radius texture] [[17.99 10.38] [13.54 14.36]] [1 0]
	// 0 = B, 1 = M
}

func ExampleError() {
	csv := "mean_radius,target\n17.99,0\n20.57,1\n19.69,1\n11.42,0\n20.29,0\nabc,1\n"
	_, err := data.Parse(strings.NewReader(csv), "data.csv", data.LoadOptions{})
	fmt.Println(err)
	// Output:
	// data.csv line 7, column "mean_radius": value "abc" is not a number; fix: features must be numbers: if "mean_radius" is the class column, name it with -target mean_radius; drop an identifier or free-text column; encode a category as numbers (one-hot); if only a few cells are text, correct them
}
