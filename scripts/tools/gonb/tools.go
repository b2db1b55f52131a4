//go:build tools

// Package tools only records the GoNB dependency (see go.mod).
package tools

import _ "github.com/janpfeifer/gonb"
