package data

// Combinations are the pairs of category values that occur together in some row of a set
// of rows (the training split): which values of two categorical, binary or ordinal columns
// a real row has held at the same time. A counterfactual that pairs values no row pairs
// (relationship = Husband with sex = Female) describes a person who does not exist.
//
// Pairs, not whole rows: on a data set with ten categorical columns almost every full
// combination of their values is missing from a few thousand rows, so "seen as a whole"
// would flag nearly everything, while a pair that never occurs is what an impossible row
// is made of. The zero value (or nil) has seen every pair.
type Combinations struct {
	cols []Column // the categorical, binary and ordinal columns, in file order
	seen map[pairKey]struct{}
}

// pairKey is a pair of columns (indexes into Combinations.cols, a < b) with a level of each.
type pairKey struct{ a, la, b, lb int32 }

// SeenCombinations records the pairs of category values that the rows (encoded, in original
// units, as Dataset.X) hold, for the categorical, binary and ordinal columns among cols.
func SeenCombinations(cols []Column, rows [][]float64) *Combinations {
	c := &Combinations{seen: map[pairKey]struct{}{}}
	for _, col := range cols {
		if col.IsCategory() {
			c.cols = append(c.cols, col)
		}
	}
	levels := make([]int, len(c.cols))
	for _, row := range rows {
		for i, col := range c.cols {
			levels[i] = col.code(row)
		}
		for a := range c.cols {
			for b := a + 1; b < len(c.cols); b++ {
				c.seen[pairKey{int32(a), int32(levels[a]), int32(b), int32(levels[b])}] = struct{}{}
			}
		}
	}
	return c
}

// IsCategory reports whether the column's values are categories: categorical, binary or
// ordinal, the columns whose values Combinations pairs.
func (c Column) IsCategory() bool {
	return c.Type == Categorical || c.Type == Binary || c.Type == Ordinal
}

// code is the index in Levels of the column's value in row (see level); -1 where it has
// none (a value that is not finite), which Unseen does not judge.
func (c Column) code(row []float64) int {
	if i, ok := c.level(row); ok {
		return i
	}
	return -1
}

// Unseen lists the category values of row that take part in a pair no recorded row holds,
// as "column=value" in column order, counting only the pairs in which at least one of the
// two values differs from base (the instance the row was changed from): a pair the
// instance already holds is a fact about it, not something the change made. nil when
// every such pair was seen, or when c is nil.
func (c *Combinations) Unseen(row, base []float64) []string {
	in, levels, n := c.unseen(row, base)
	if n == 0 {
		return nil
	}
	var out []string
	for i, col := range c.cols {
		if in[i] {
			out = append(out, col.Name+"="+col.Levels[levels[i]])
		}
	}
	return out
}

// UnseenPairs counts the pairs that Unseen reports the values of.
func (c *Combinations) UnseenPairs(row, base []float64) int {
	_, _, n := c.unseen(row, base)
	return n
}

// unseen marks the columns in an unseen pair of row (see Unseen), with row's levels and
// the number of such pairs.
func (c *Combinations) unseen(row, base []float64) (in []bool, levels []int, n int) {
	if c == nil || len(c.seen) == 0 {
		return nil, nil, 0
	}
	levels, in = make([]int, len(c.cols)), make([]bool, len(c.cols))
	changed := make([]bool, len(c.cols))
	for i, col := range c.cols {
		levels[i] = col.code(row)
		changed[i] = levels[i] != col.code(base)
	}
	for a := range c.cols {
		for b := a + 1; b < len(c.cols); b++ {
			if !changed[a] && !changed[b] || levels[a] < 0 || levels[b] < 0 {
				continue
			}
			if _, ok := c.seen[pairKey{int32(a), int32(levels[a]), int32(b), int32(levels[b])}]; !ok {
				in[a], in[b] = true, true
				n++
			}
		}
	}
	return in, levels, n
}
