package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
)

// ReadScaler reads, from a JSON file, the standardisation a model that takes standardised
// inputs was trained with, so that the model is fed what it saw in training rather than
// the training split's standardisation. The file gives each column's mean and scale, the
// model being fed (value − mean) / scale, in either of two forms:
//
//	{"mean_radius": {"mean": 14.1, "scale": 3.5}, "mean_texture": {"mean": 19.3, "scale": 4.3}, …}
//	{"columns": ["mean_radius", …], "mean": [14.1, …], "scale": [3.5, …]}
//
// The second is scikit-learn's StandardScaler as it exports: "feature_names_in_", "mean_"
// and "scale_" are accepted for "columns", "mean" and "scale", e.g.
// json.dump({"feature_names_in_": list(s.feature_names_in_), "mean_": list(s.mean_),
// "scale_": list(s.scale_)}, f). Columns are named, in any order.
//
// A model trained on min-max scaled inputs, (value − min) / (max − min), gives each column's
// minimum and maximum instead: {"age": {"min": 18, "max": 90}, …}, or as lists "min" and
// "max" (scikit-learn's MinMaxScaler with its default feature_range (0, 1): "data_min_"
// and "data_max_"); they are read as mean = min and scale = max − min.
//
// The scaler covers every column that reaches the model as one input (numeric, binary,
// ordinal: the value as the model gets it, an ordinal's rank 0…k−1, a text binary's 0/1
// code): each must be given, with a finite mean and a finite scale > 0. A categorical
// column reaches the model as one-hot inputs of 0 and 1, which are not standardised (as
// with FitScaler), so the file must not name it. A name that is no column, a column given
// twice or left out, and a bad number are each an *Error naming the file and the column.
func (d *Dataset) ReadScaler(path string) (*Scaler, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Problem: "cannot be read: " + err.Error(), Fix: "give the path of a readable JSON file", err: err}
	}
	entries, err := parseScaler(path, b)
	if err != nil {
		return nil, err
	}
	cols := d.columns()
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	byName := map[string]scalerEntry{}
	for _, e := range entries {
		i := slices.Index(names, e.column)
		switch {
		case i < 0:
			return nil, &Error{File: path, Column: e.column,
				Problem: "is not a feature column of the data, whose columns are " + listColumns(names),
				Fix:     "remove it, or rename it to the column it standardises"}
		case cols[i].Type == Categorical:
			return nil, &Error{File: path, Column: e.column,
				Problem: "is categorical: the model gets it as one-hot inputs of 0 and 1, which are not standardised",
				Fix:     "remove it from the scaler file"}
		}
		if _, dup := byName[e.column]; dup {
			return nil, &Error{File: path, Column: e.column, Problem: "is given twice", Fix: "give each column once"}
		}
		if math.IsNaN(e.mean) || math.IsInf(e.mean, 0) {
			return nil, &Error{File: path, Column: e.column, Value: strconv.FormatFloat(e.mean, 'g', -1, 64),
				Problem: "has a mean that is not a finite number", Fix: "give the mean the model's standardisation used"}
		}
		if !(e.scale > 0) || math.IsInf(e.scale, 0) {
			return nil, &Error{File: path, Column: e.column, Value: strconv.FormatFloat(e.scale, 'g', -1, 64),
				Problem: "has a scale that is not a finite number > 0 (for a min-max column: max − min)", Fix: "give the scale (standard deviation) the model's standardisation divided by, or a max above the min; scikit-learn writes 1 for a constant column"}
		}
		// The model is fed (value − mean) / scale in float32: a mean beyond its range, or a
		// scale below its smallest normal number, makes every input infinite.
		if math.Abs(e.mean) > math.MaxFloat32 {
			return nil, &Error{File: path, Column: e.column, Value: strconv.FormatFloat(e.mean, 'g', -1, 64),
				Problem: "has a mean that " + float32Problem, Fix: "give the mean the model's standardisation used, within ±3.4e38"}
		}
		if e.scale < minNormalFloat32 || e.scale > math.MaxFloat32 {
			return nil, &Error{File: path, Column: e.column, Value: strconv.FormatFloat(e.scale, 'g', -1, 64),
				Problem: "has a scale outside float32's normal numbers (1.2e-38 to 3.4e38), in which the models compute: dividing by it gives infinities or zeros",
				Fix:     "give the scale (standard deviation) the model's standardisation divided by; scikit-learn writes 1 for a constant column"}
		}
		byName[e.column] = e
	}
	s := &Scaler{Mean: make([]float64, len(d.Features)), Std: make([]float64, len(d.Features))}
	var missing []string
	for _, c := range cols {
		for j := c.Start; j < c.Start+c.Width; j++ {
			s.Mean[j], s.Std[j] = 0, 1
		}
		if c.Type == Categorical {
			continue
		}
		e, ok := byName[c.Name]
		if !ok {
			missing = append(missing, c.Name)
			continue
		}
		s.Mean[c.Start], s.Std[c.Start] = e.mean, e.scale
	}
	if len(missing) > 0 {
		return nil, &Error{File: path, Column: missing[0],
			Problem: fmt.Sprintf("is missing: the scaler must give every column the model gets as one input; %d missing: %s", len(missing), listColumns(missing)),
			Fix:     "add the mean and scale of each (categorical columns excepted)"}
	}
	return s, nil
}

// minNormalFloat32 is the smallest normal float32, 2⁻¹²⁶.
const minNormalFloat32 = 0x1p-126

// jsonProblem says what is wrong with JSON that did not decode into want, in JSON's terms:
// the type of what the file holds (rather than the Go type it missed), and for a syntax
// error the decoder's own words, with a hint for NaN and Infinity, which JSON lacks (Python's
// json module writes them).
func jsonProblem(err error, b []byte, want string) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("is not %s: it holds a JSON %s", want, te.Value)
	}
	msg := fmt.Sprintf("is not %s: %v", want, err)
	if bytes.Contains(b, []byte("NaN")) || bytes.Contains(b, []byte("Infinity")) {
		msg += " (JSON has no NaN or Infinity: a scaler fitted on data with missing or infinite values writes them)"
	}
	return msg
}

// scalerEntry is one column of a scaler file; a min-max column's mean is its minimum and
// its scale its maximum minus its minimum.
type scalerEntry struct {
	column      string
	mean, scale float64
}

// minMaxEntry is the entry of a column scaled to [0, 1] between min and max.
func minMaxEntry(column string, min, max float64) scalerEntry {
	return scalerEntry{column, min, max - min}
}

// parseScaler reads either form of a scaler file (see ReadScaler), in the file's order.
func parseScaler(path string, b []byte) ([]scalerEntry, error) {
	fix := `write {"column": {"mean": m, "scale": s}, …} or {"column": {"min": a, "max": b}, …}, or {"columns": [...], "mean": [...], "scale": [...]}`
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, &Error{File: path, Problem: jsonProblem(err, b, "a JSON object"), Fix: fix, err: err}
	}
	arrays := func(keys ...string) (json.RawMessage, string) {
		for _, k := range keys {
			if v, ok := top[k]; ok && bytes.HasPrefix(bytes.TrimSpace(v), []byte("[")) {
				return v, k
			}
		}
		return nil, ""
	}
	meanRaw, meanKey := arrays("mean", "mean_")
	scaleKeys, minMax := []string{"scale", "scale_"}, false
	if meanRaw == nil {
		meanRaw, meanKey = arrays("min", "data_min_")
		scaleKeys, minMax = []string{"max", "data_max_"}, true
	}
	if meanRaw != nil {
		colRaw, colKey := arrays("columns", "feature_names_in_")
		scaleRaw, scaleKey := arrays(scaleKeys...)
		if colRaw == nil || scaleRaw == nil {
			return nil, &Error{File: path, Problem: fmt.Sprintf("has %q but not the column names (columns or feature_names_in_) and the %s or %s as lists", meanKey, scaleKeys[0], scaleKeys[1]),
				Fix: fmt.Sprintf("name the columns in order with \"columns\" (scikit-learn: feature_names_in_, set when the scaler is fitted on a DataFrame) and give %q", scaleKeys[0])}
		}
		var columns []string
		var means, scales []float64
		for _, f := range []struct {
			key string
			raw json.RawMessage
			to  any
		}{{colKey, colRaw, &columns}, {meanKey, meanRaw, &means}, {scaleKey, scaleRaw, &scales}} {
			if err := json.Unmarshal(f.raw, f.to); err != nil {
				want := map[bool]string{true: "a list of names", false: "a list of numbers"}[f.key == colKey]
				return nil, &Error{File: path, Problem: fmt.Sprintf("%q %s", f.key, jsonProblem(err, f.raw, want)), Fix: fix, err: err}
			}
		}
		if len(means) != len(columns) || len(scales) != len(columns) {
			return nil, &Error{File: path, Problem: fmt.Sprintf("lists %d columns, %d means and %d scales", len(columns), len(means), len(scales)), Fix: "give one mean and one scale per column, in the columns' order"}
		}
		for k := range top {
			if k != colKey && k != meanKey && k != scaleKey {
				return nil, &Error{File: path, Column: k, Problem: "is not part of a scaler given as lists", Fix: "keep only the columns, the means and the scales"}
			}
		}
		out := make([]scalerEntry, len(columns))
		for i := range columns {
			out[i] = scalerEntry{columns[i], means[i], scales[i]}
			if minMax {
				out[i] = minMaxEntry(columns[i], means[i], scales[i])
			}
		}
		return out, nil
	}
	// By column name, in the file's order (the keys' order is kept for the messages).
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // {
		return nil, &Error{File: path, Problem: err.Error(), Fix: fix, err: err}
	}
	var out []scalerEntry
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, &Error{File: path, Problem: err.Error(), Fix: fix, err: err}
		}
		name, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, &Error{File: path, Column: name, Problem: err.Error(), Fix: fix, err: err}
		}
		var e struct{ Mean, Scale, Min, Max *float64 }
		entry := json.NewDecoder(bytes.NewReader(raw))
		entry.DisallowUnknownFields()
		err = entry.Decode(&e)
		standard, minMax := e.Mean != nil && e.Scale != nil && e.Min == nil && e.Max == nil, e.Min != nil && e.Max != nil && e.Mean == nil && e.Scale == nil
		switch {
		case err == nil && standard:
			out = append(out, scalerEntry{name, *e.Mean, *e.Scale})
		case err == nil && minMax:
			out = append(out, minMaxEntry(name, *e.Min, *e.Max))
		default:
			return nil, &Error{File: path, Column: name, Value: clip(string(raw)),
				Problem: `is not {"mean": number, "scale": number} nor {"min": number, "max": number}`, Fix: fix}
		}
	}
	return out, nil
}
