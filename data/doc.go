// Package data loads small labelled tabular data sets for classification
// (binary or multi-class) and prepares them for training.
//
// A data set is a CSV file with a header row. One column is the target
// (by default the last one, or the column named in [LoadOptions].Target);
// it must hold between two and [MaxClasses] distinct values, which are
// numbered as classes 0, 1, ..., C-1. Every other column is a numeric
// feature. [Load] and [Parse] stream the file with encoding/csv, so memory
// use is proportional to the data, and they accept the usual variations
// found in real files: a UTF-8 byte-order mark, CRLF line endings, quoted
// numbers, spaces around cells and blank lines. Every problem with the
// input is reported as an *[Error] that names the file, the 1-based
// physical line (the header is line 1), the column and the offending
// value, and suggests a fix.
//
// Class numbering: target values that are numerically equal ("1", "1.0")
// are the same class. If every target value is a number, the classes are
// sorted by value ("9" before "10"), so a 0/1 target keeps its mapping and
// a 0/1/2 target keeps its numbers; otherwise they are sorted by text
// (byte order, so "B" before "a"). Class 0 is the first in that order.
// [Dataset].Labels keeps the original text of each class (the first
// spelling seen) and [Dataset.NumClasses] is their number.
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
