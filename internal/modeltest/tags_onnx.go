//go:build onnx

package modeltest

var buildFlags = []string{"-tags", "onnx"}
