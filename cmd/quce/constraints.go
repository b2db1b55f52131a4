package main

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/quce"
)

// constraintFlags are the actionable constraints of quce explain, by column name.
type constraintFlags struct {
	frozen, increase, decrease, bounds string
}

func (c *constraintFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.frozen, "frozen", "", "comma-separated columns that may not change (a categorical column keeps its category)")
	fs.StringVar(&c.increase, "increase", "", "comma-separated columns that may only grow (numbers; ordinal columns by rank), e.g. age")
	fs.StringVar(&c.decrease, "decrease", "", "comma-separated columns that may only shrink")
	fs.StringVar(&c.bounds, "bounds", "", "NAME=LOW:HIGH,... ranges in the data's own units (an ordinal column's levels by name), replacing the default range (the training split's observed one); an empty side has no bound at all, e.g. age=18:70,duration=:48,income=0:")
}

// constraints reads the flags against the data set's columns; every error names its flag.
func (c *constraintFlags) constraints(ds *data.Dataset) (quce.Constraints, error) {
	cols := ds.Columns
	out := quce.Constraints{Frozen: splitList(c.frozen), Increase: splitList(c.increase), Decrease: splitList(c.decrease)}
	// The target is no column a counterfactual changes by hand: it is what the model predicts.
	for _, set := range []struct {
		flag  string
		names []string
	}{{"-frozen", out.Frozen}, {"-increase", out.Increase}, {"-decrease", out.Decrease}} {
		if slices.Contains(set.names, ds.Target) {
			return out, fmt.Errorf("%s %s: %q is the target column (the class the model predicts), not a feature; fix: constrain feature columns only (the counterfactual changes the features, and the model's prediction follows)", set.flag, ds.Target, ds.Target)
		}
	}
	for _, part := range splitList(c.bounds) {
		name, rng, ok := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return out, fmt.Errorf("-bounds %q: %q is not NAME=LOW:HIGH; fix: write e.g. -bounds age=18:70 (a side may be empty: duration=:48)", c.bounds, part)
		}
		if name == ds.Target {
			return out, fmt.Errorf("-bounds %s: %q is the target column (the class the model predicts), not a feature; fix: bound feature columns only", part, name)
		}
		// An unknown column, or one without an order, is refused before its range is read.
		if err := quce.CheckConstraints(cols, quce.Constraints{Bounds: map[string][2]float64{name: {math.NaN(), math.NaN()}}}); err != nil {
			return out, err
		}
		i := slices.IndexFunc(cols, func(col data.Column) bool { return col.Name == name })
		lo, hi, err := parseRange(cols[i], rng)
		if err != nil {
			return out, fmt.Errorf("-bounds %s: %w", part, err)
		}
		if out.Bounds == nil {
			out.Bounds = map[string][2]float64{}
		}
		if _, dup := out.Bounds[name]; dup {
			return out, fmt.Errorf("-bounds: column %q is given twice; fix: give one LOW:HIGH per column", name)
		}
		out.Bounds[name] = [2]float64{lo, hi}
	}
	if !slices.ContainsFunc(cols, func(col data.Column) bool { return !slices.Contains(out.Frozen, col.Name) }) {
		return out, fmt.Errorf("-frozen: every column is frozen, so nothing can change; fix: leave at least one column free")
	}
	return out, quce.CheckConstraints(cols, out)
}

// parseRange reads LOW:HIGH for a column: numbers, or an ordinal column's level names
// (whose text may itself hold a colon, so every split is tried). An empty side is open (NaN):
// no bound on that side, not even the observed range (see quce.Constraints).
func parseRange(c data.Column, rng string) (float64, float64, error) {
	side := func(s string) (float64, bool) {
		s = strings.TrimSpace(s)
		if s == "" {
			return math.NaN(), true
		}
		if c.Type == data.Ordinal {
			if k := slices.Index(c.Levels, s); k >= 0 {
				return float64(k), true
			}
			return 0, false
		}
		v, err := strconv.ParseFloat(s, 64)
		return v, err == nil && !math.IsNaN(v)
	}
	for i := 0; i < len(rng); i++ {
		if rng[i] != ':' {
			continue
		}
		lo, okLo := side(rng[:i])
		hi, okHi := side(rng[i+1:])
		if okLo && okHi {
			return lo, hi, nil
		}
	}
	if c.Type == data.Ordinal {
		return 0, 0, fmt.Errorf("want LOW:HIGH with levels of the ordinal column %q (%s); fix: e.g. %s=%s:%s", c.Name, strings.Join(c.Levels, " < "), c.Name, c.Levels[0], c.Levels[len(c.Levels)-1])
	}
	return 0, 0, fmt.Errorf("want LOW:HIGH in the units of %q, e.g. %s=18:70; fix: write two numbers (or leave a side empty)", c.Name, c.Name)
}
