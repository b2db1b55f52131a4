package data

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"
)

// Split divides the rows of d into a training and a test set, stratified by
// class. The test set normally has ceil(testFrac*rows) rows, as in
// scikit-learn's train_test_split (569 rows at 0.2 give 455/114), shared
// out among the classes by largest remainder of testFrac*n_class, so every
// class gets within one row of testFrac*n_class. Every class gets at least
// one test row and keeps at least one training row (these limits can move
// the total by a row or two), so a class with a single row is refused: it
// cannot be in both, and a classifier cannot learn a class from one
// example. Rows are chosen by a seeded
// Fisher-Yates shuffle within each class, using this package's own
// SplitMix64 generator, so the same d.Y, testFrac and seed always give the
// same split, on every platform and Go version. trainIdx and testIdx are
// disjoint, together cover every row, and are each sorted ascending.
// testFrac must be in (0, 1); callers normally use 0.2.
func Split(d *Dataset, testFrac float64, seed int64) (trainIdx, testIdx []int, err error) {
	if d == nil || d.Rows() == 0 {
		return nil, nil, &Error{
			Problem: "cannot split an empty data set",
			Fix:     "load a data set with at least two rows",
		}
	}
	name := d.Name
	if len(d.Y) != d.Rows() {
		return nil, nil, &Error{
			File:    name,
			Problem: fmt.Sprintf("data set has %d rows but %d labels", d.Rows(), len(d.Y)),
			Fix:     "give every row exactly one label",
		}
	}
	if !(testFrac > 0 && testFrac < 1) {
		return nil, nil, &Error{
			File:    name,
			Problem: fmt.Sprintf("test fraction %v is not between 0 and 1 (exclusive)", testFrac),
			Fix:     "use a test fraction such as 0.2",
		}
	}
	byClass := map[int][]int{}
	for i, y := range d.Y {
		byClass[y] = append(byClass[y], i)
	}
	classes := make([]int, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	sort.Ints(classes)
	if err := singleRowClasses(d, classes, byClass); err != nil {
		return nil, nil, err
	}

	// Test rows: ceil(testFrac*n) in all. Class c first gets
	// floor(testFrac*n_c); the rows still missing go one each to the classes
	// with the largest remainders, so every class gets within one row of
	// testFrac*n_c.
	n := d.Rows()
	nTest := int(math.Ceil(testFrac*float64(n) - 1e-9))
	nTest = min(max(nTest, 1), n-1)
	quota := make([]int, len(classes))
	rem := make([]float64, len(classes))
	left := nTest
	for k, c := range classes {
		e := testFrac * float64(len(byClass[c]))
		fl := math.Floor(e + 1e-9)
		quota[k], rem[k] = int(fl), e-fl
		left -= quota[k]
	}
	order := make([]int, len(classes))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return rem[order[a]] > rem[order[b]] })
	for _, k := range order[:min(max(left, 0), len(order))] {
		quota[k]++
	}

	r := splitMix64{s: uint64(seed)}
	trainIdx = make([]int, 0, n)
	for k, c := range classes {
		idx := byClass[c]
		nc := len(idx)
		for i := nc - 1; i > 0; i-- { // Fisher-Yates
			j := r.intn(i + 1)
			idx[i], idx[j] = idx[j], idx[i]
		}
		nt := min(max(quota[k], 1), nc-1)
		testIdx = append(testIdx, idx[:nt]...)
		trainIdx = append(trainIdx, idx[nt:]...)
	}
	sort.Ints(trainIdx)
	sort.Ints(testIdx)
	return trainIdx, testIdx, nil
}

// singleRowClasses refuses classes that have a single row, naming them by their label and
// the row by its line in the file.
func singleRowClasses(d *Dataset, classes []int, byClass map[int][]int) *Error {
	var single []string
	first := -1
	for _, c := range classes {
		if len(byClass[c]) != 1 {
			continue
		}
		i := byClass[c][0]
		if first < 0 {
			first = i
		}
		where := fmt.Sprintf("row %d", i+1)
		if len(d.Lines) == d.Rows() {
			where = fmt.Sprintf("line %d", d.Lines[i])
		}
		name := strconv.Itoa(c)
		if c < len(d.Labels) {
			name = d.Labels[c]
		}
		single = append(single, fmt.Sprintf("%q (%s)", clip(name), where))
	}
	if single == nil {
		return nil
	}
	e := &Error{File: d.Name, Column: d.Target,
		Fix: "remove the row, merge the class into another in the target column, or add rows of it"}
	if len(d.Lines) == d.Rows() {
		e.Line = d.Lines[first]
	}
	what := "class " + single[0] + " has a single row"
	if len(single) > 1 {
		const most = 5
		n := len(single)
		if n > most {
			single = append(single[:most], fmt.Sprintf("... (%d more)", n-most))
		}
		what = fmt.Sprintf("%d classes have a single row: %s", n, strings.Join(single, ", "))
	}
	e.Problem = what + "; a class needs rows in both the training and the test split, and a classifier cannot learn it from one example"
	return e
}

// splitMix64 is a small, fixed pseudo-random generator, so that splits are
// reproducible independent of the standard library's generators.
type splitMix64 struct{ s uint64 }

func (r *splitMix64) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a uniform integer in [0, n), n > 0 (Lemire's method).
func (r *splitMix64) intn(n int) int {
	un := uint64(n)
	hi, lo := bits.Mul64(r.next(), un)
	if lo < un {
		thresh := -un % un
		for lo < thresh {
			hi, lo = bits.Mul64(r.next(), un)
		}
	}
	return int(hi)
}

// Partition is a train/test split of a data set's rows that the user gives (a split column,
// two files, or one made by hand), used instead of Split's.
type Partition struct {
	By          string // what gives the split, for messages and outputs: `the column "fold"`
	Train, Test []int  // the rows of each split, by index in the data set
}

// Check reports whether p splits the rows of d: every row in exactly one split, both splits
// with rows, and every class with a training row (a classifier cannot learn a class it never
// sees). A class may lack test rows.
func (p *Partition) Check(d *Dataset) error {
	e := &Error{File: d.Name, Fix: fmt.Sprintf("change the split (%s) so that both splits hold rows", p.By)}
	seen := make([]bool, d.Rows())
	for _, idx := range [][]int{p.Train, p.Test} {
		for _, i := range idx {
			if i < 0 || i >= len(seen) || seen[i] {
				e.Problem = fmt.Sprintf("the split (%s) names row index %d, which is not a row of its %d or is named twice", p.By, i, len(seen))
				e.Fix = "name each row index from 0 to the rows less one once, in Train or in Test"
				return e
			}
			seen[i] = true
		}
	}
	switch {
	case len(p.Train)+len(p.Test) != len(seen):
		e.Problem = fmt.Sprintf("the split (%s) puts %d of the %d rows in a split", p.By, len(p.Train)+len(p.Test), len(seen))
		e.Fix = "put every row in Train or in Test"
		return e
	case len(p.Train) == 0 || len(p.Test) == 0:
		e.Problem = fmt.Sprintf("the split (%s) gives %d training rows and %d test rows; the models are trained on the one and tested on the other", p.By, len(p.Train), len(p.Test))
		return e
	}
	inTrain := make([]bool, d.NumClasses())
	for _, i := range p.Train {
		inTrain[d.Y[i]] = true
	}
	for c, ok := range inTrain {
		if !ok {
			e.Column = d.Target
			e.Problem = fmt.Sprintf("class %q has no row in the training split (%s), so the classifier cannot learn it", clip(d.Labels[c]), p.By)
			e.Fix = "put some of its rows in the training split"
			return e
		}
	}
	return nil
}

// Key is a short hash of the split, for the name of a cache entry of models trained on it.
func (p *Partition) Key() string {
	h := sha256.New()
	fmt.Fprint(h, len(p.Train), p.Test)
	return hex.EncodeToString(h.Sum(nil)[:8])
}
