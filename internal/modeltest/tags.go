//go:build !onnx

package modeltest

var buildFlags []string
