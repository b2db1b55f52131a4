//go:build noxla

package backend

func installedXLAPlugin() string { return "" }
