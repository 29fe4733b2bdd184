// Package deps pins the project's chosen dependencies while the packages that use them are
// being written; it is removed once every dependency has a real importer.
package deps

import (
	_ "github.com/HdrHistogram/hdrhistogram-go"
	_ "github.com/apache/arrow/go/v17/arrow"
	_ "github.com/apache/arrow/go/v17/arrow/ipc"
	_ "github.com/dlclark/regexp2"
	_ "github.com/nikolalohinski/gonja/v2"
	_ "github.com/parquet-go/parquet-go"
	_ "github.com/prometheus/common/expfmt"
	_ "github.com/sashabaranov/go-openai"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/spf13/pflag"
	_ "gonum.org/v1/plot"
	_ "gonum.org/v1/plot/vg/vgsvg"
)
