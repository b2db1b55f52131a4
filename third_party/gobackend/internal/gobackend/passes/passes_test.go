package passes_test

import (
	_ "github.com/quce-go/quce/third_party/gobackend/internal/gobackend/defaultpkgs"
	"k8s.io/klog/v2"
)

func init() {
	klog.InitFlags(nil)
}
