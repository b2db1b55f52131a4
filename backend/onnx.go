//go:build onnx

package backend

// The optional ONNX Runtime backend (github.com/gomlx/compute-onnx), compiled in only with
// -tags onnx because it needs cgo. It registers the names "onnx" and "onnxruntime"; select it
// with GOMLX_BACKEND=onnx:/path/to/libonnxruntime.so.1 (scripts/get-onnxruntime.sh fetches the
// library and prints that line). It is never chosen without GOMLX_BACKEND.

import (
	onnxbackend "github.com/gomlx/compute-onnx"
)

func init() {
	// Never download anything: compute-onnx would otherwise fetch an unpinned ONNX Runtime
	// release when no library path is given. Its own init has already read
	// GOMLX_NO_AUTO_INSTALL, so setting the variable here would be too late; this is not.
	onnxbackend.EnableAutoInstall(false)
}
