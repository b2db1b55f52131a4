package main

import "github.com/quce-go/quce/data"

// columnsJSON describes the data's columns for the JSON outputs: name, type, levels and
// which model inputs hold them.
func columnsJSON(cols []data.Column) []map[string]any {
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
