package data

import (
	"bytes"
	_ "embed"
	"slices"
	"sync"
)

// Dataset is a labelled tabular data set: rows of float64 features and a
// class index per row.
type Dataset struct {
	Name     string      // "wbc (embedded)" or the file path (the name given to Parse)
	Features []string    // feature column names, in order
	X        [][]float64 // rows x features
	Y        []int       // class index 0..NumClasses()-1, one per row
	Labels   []string    // original label text of class 0, 1, ..., NumClasses()-1
	Target   string      // name of the target column
	Checksum string      // hex sha256 of the raw file bytes
}

// Rows returns the number of rows (samples).
func (d *Dataset) Rows() int { return len(d.X) }

// NumFeatures returns the number of feature columns.
func (d *Dataset) NumFeatures() int { return len(d.Features) }

// NumClasses returns the number of classes, len(d.Labels): 2 for a binary
// target. Every d.Y[i] is in [0, NumClasses()).
func (d *Dataset) NumClasses() int { return len(d.Labels) }

// Subset returns a new Dataset holding copies of the rows idx (in the given
// order; an index may repeat). Name, feature names, labels, target and
// checksum are kept. It panics if an index is out of range, like slice
// indexing.
func (d *Dataset) Subset(idx []int) *Dataset {
	s := &Dataset{
		Name:     d.Name,
		Features: append([]string(nil), d.Features...),
		X:        make([][]float64, len(idx)),
		Labels:   slices.Clone(d.Labels),
		Target:   d.Target,
		Checksum: d.Checksum,
	}
	if d.Y != nil {
		s.Y = make([]int, len(idx))
	}
	total := 0
	for _, i := range idx {
		total += len(d.X[i])
	}
	buf := make([]float64, total)
	for k, i := range idx {
		n := copy(buf, d.X[i])
		s.X[k] = buf[:n:n]
		buf = buf[n:]
		if s.Y != nil {
			s.Y[k] = d.Y[i]
		}
	}
	return s
}

// clone returns a deep copy of d.
func (d *Dataset) clone() *Dataset {
	idx := make([]int, len(d.X))
	for i := range idx {
		idx[i] = i
	}
	return d.Subset(idx)
}

//go:embed wbc.csv
var wbcCSV []byte

// wbcName is the Name of the embedded data set returned by WBC.
const wbcName = "wbc (embedded)"

var (
	wbcOnce sync.Once
	wbcData *Dataset
)

// WBC returns the embedded Wisconsin Diagnostic Breast Cancer data set:
// 569 rows, 30 features, target column "target" with 1 = benign (357 rows)
// and 0 = malignant (212 rows). The file is parsed once; every call returns
// a fresh deep copy that the caller may modify. See README.md for the
// provenance and licence (CC BY 4.0).
//
// WBC panics only if the embedded file is broken, which is a programming
// error.
func WBC() *Dataset {
	wbcOnce.Do(func() {
		d, err := Parse(bytes.NewReader(wbcCSV), "wbc.csv", LoadOptions{})
		if err != nil {
			panic("data: embedded wbc.csv is broken: " + err.Error())
		}
		d.Name = wbcName
		// The file codes the classes 0/1 (scikit-learn's coding); name them for people.
		d.Labels = []string{"malignant", "benign"}
		wbcData = d
	})
	return wbcData.clone()
}
