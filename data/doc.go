// Package data loads small labelled tabular data sets for binary
// classification and prepares them for training.
//
// A data set is a CSV file with a header row. One column is the target
// (by default the last one, or the column named in [LoadOptions].Target);
// it must hold exactly two distinct values, which are mapped to the labels
// 0 and 1. Every other column is a numeric feature. [Load] and [Parse]
// stream the file with encoding/csv, so memory use is proportional to the
// data, and they accept the usual variations found in real files: a UTF-8
// byte-order mark, CRLF line endings, quoted numbers, spaces around cells
// and blank lines. Every problem with the input is reported as an *[Error]
// that names the file, the 1-based physical line (the header is line 1),
// the column and the offending value, and suggests a fix.
//
// Label mapping: if the two target values are numerically 0 and 1 ("0",
// "1", "0.0", "1.0", ...) that mapping is kept. Otherwise the two values
// are sorted (numerically if both are numbers, else lexically) and the
// first is mapped to 0. [Dataset].Labels keeps the original text.
//
// [WBC] returns the embedded Wisconsin Diagnostic Breast Cancer data set
// (569 rows, 30 features, target 1 = benign, 0 = malignant, the coding used
// by scikit-learn). See README.md in this directory for its provenance and
// licence (CC BY 4.0).
//
// [Split] makes a seeded, stratified, deterministic train/test split, and
// [Scaler] standardises features using statistics fitted on the training
// rows only. [ToFloat32] and [ToFloat64] convert between precisions.
package data
