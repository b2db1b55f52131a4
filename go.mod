module github.com/quce-go/quce

go 1.27

toolchain go1.27.3

require (
	github.com/gomlx/compute v0.1.14
	github.com/gomlx/compute-onnx v0.1.13
	github.com/gomlx/go-xla v0.4.13
	github.com/gomlx/gomlx v0.28.16
	github.com/gomlx/onnx-gomlx v0.5.13
	github.com/janpfeifer/gonb v0.11.5
	github.com/pkg/errors v0.9.1
	golang.org/x/image v0.43.0
	golang.org/x/sys v0.48.0
	gonum.org/v1/plot v0.17.0
	google.golang.org/protobuf v1.36.11
	k8s.io/klog/v2 v2.140.0
)

require (
	codeberg.org/go-fonts/liberation v0.5.0 // indirect
	codeberg.org/go-latex/latex v0.2.0 // indirect
	codeberg.org/go-pdf/fpdf v0.11.1 // indirect
	git.sr.ht/~sbinet/gg v0.7.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/gofrs/uuid v4.4.0+incompatible // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	github.com/gomlx/exceptions v0.0.3 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	golang.org/x/exp v0.0.0-20260908205506-85c1c2202aba // indirect
	golang.org/x/text v0.38.0 // indirect
	rsc.io/pdf v0.1.1 // indirect
)
