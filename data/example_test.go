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
	csv := "mean_radius,target\n17.99,0\n20.57,1\n19.69,1\n11.42,0\n20.29,0\nNA,1\n"
	_, err := data.Parse(strings.NewReader(csv), "data.csv", data.LoadOptions{})
	fmt.Println(err)
	// Output:
	// data.csv line 7, column "mean_radius": value "NA" stands for a missing value; fix: fill in the missing value, or LoadOptions.DropMissing drops such rows (or LoadOptions.Ignore mean_radius leaves out a column that is mostly empty)
}

func ExampleParse_mixedTypes() {
	csv := "id,age,housing,employment,telephone,risk\n" +
		"17,67,own,>=7,yes,good\n" +
		"18,22,rent,1<=X<4,none,bad\n" +
		"19,49,for free,<1,none,good\n"
	// What the quce command gets from -types and -ignore.
	types, err := data.ParseTypes("employment=ordinal:unemployed < <1 < 1<=X<4 < >=7")
	if err != nil {
		panic(err)
	}
	d, err := data.Parse(strings.NewReader(csv), "credit.csv", data.LoadOptions{Types: types, Ignore: []string{"id"}})
	if err != nil {
		panic(err)
	}
	for _, line := range d.Summary() {
		fmt.Println(line)
	}
	fmt.Println(d.Features)
	fmt.Println(d.X[1], "on line", d.Lines[1])

	// A counterfactual moves the inputs continuously; Format reads them
	// back in the data's own terms.
	cf := []float64{30.4, 0.1, 0.6, 0.3, 2.8, 0.9}
	var cells []string
	for _, c := range d.Columns {
		cells = append(cells, c.Name+"="+c.Format(cf))
	}
	fmt.Println(strings.Join(cells, " "))

	// A new instance, given as text.
	x, err := d.EncodeRecord(map[string]string{"age": "35", "housing": "own", "employment": "<1", "telephone": "yes"})
	fmt.Println(x, err)
	_, err = d.EncodeRecord(map[string]string{"age": "35", "housing": "boat", "employment": "<1", "telephone": "yes"})
	fmt.Println(err)
	// Output:
	// age: integer, 22 … 67
	// housing: categorical, 3 categories (for free, own, rent)
	// employment: ordinal, unemployed < <1 < 1<=X<4 < >=7
	// telephone: binary, none (0) or yes (1)
	// id: ignored
	// [age housing=for free housing=own housing=rent employment telephone]
	// [22 0 0 1 2 0] on line 3
	// age=30 housing=own employment=>=7 telephone=yes
	// [35 0 1 0 1 1] <nil>
	// column "housing": value "boat" is a category never seen in training data; seen: "for free", "own", "rent"; fix: write one of the categories of housing: the model has no input for a new one
}
