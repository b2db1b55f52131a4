package report

import (
	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline"
)

// The JSON outputs describe what a run was made with, so that it can be repeated and
// checked: its data (DatasetJSON), the model explained (ModelJSON), the data's columns
// (ColumnsJSON) and whether the backend ran the While loops (WhileLoopsJSON).

// DatasetJSON describes s's data: its name, checksum, rows, target and labels, the rows of
// each split, and the columns left out of the features for holding one value in every row.
func DatasetJSON(s *pipeline.Setup) map[string]any {
	return map[string]any{
		"name": s.Data.Name, "sha256": s.Data.Checksum, "rows": s.Data.Rows(), "target": s.Data.Target,
		"labels": s.Data.Labels, "train_rows": len(s.TrainIdx), "test_rows": len(s.TestIdx),
		"constant_columns": append([]string{}, s.Data.Constant...), // left out: one value in every row
	}
}

// ModelJSON describes the model s explains: its input units and outputs, its classes in the
// order of its outputs, its scaler and whether a weak model was allowed; a user's model
// (pipeline.Options.Model) by its id, the built-in classifier by its configuration.
func ModelJSON(s *pipeline.Setup) map[string]any {
	chk := s.ModelCheck
	m := map[string]any{
		"input": s.Options.ModelInput, "output": s.Options.ModelOutput,
		"features": s.Model.NumFeatures(), "outputs": s.Model.NumOutputs(),
		"classes": chk.Classes, "scaler": chk.Scaler, "allow_weak_model": s.Options.AllowWeakModel,
	}
	if s.Options.Model != nil {
		m["kind"], m["id"] = "user", s.Options.ModelID
	} else {
		m["kind"], m["classifier"] = "built-in", s.Classifier.Config
	}
	return m
}

// ColumnsJSON describes the data's columns: name, type, levels and which model inputs hold
// them.
func ColumnsJSON(cols []data.Column) []map[string]any {
	out := make([]map[string]any, len(cols))
	for i, c := range cols {
		m := map[string]any{"name": c.Name, "type": c.Type, "inputs": [2]int{c.Start, c.Start + c.Width}}
		if c.Levels != nil {
			m["levels"] = c.Levels
		}
		out[i] = m
	}
	return out
}

// WhileLoopsJSON says whether the backend ran training and the search in While loops: "ok",
// or why not, in which case they took one execution per step (backend.Loops).
func WhileLoopsJSON(info backend.Info) string {
	if info.Loops != nil {
		return info.Loops.Error()
	}
	return "ok"
}
