// Package data loads small labelled tabular data sets for classification
// (binary or multi-class), with numeric and text columns, and prepares
// them for training.
//
// A data set is a CSV file with a header row. One column is the target
// (by default the last one, or the column named in [LoadOptions].Target);
// it must hold between two and [MaxClasses] distinct values (at most
// [MaxNumericClasses] if all are numbers: more is a measurement), which are
// numbered as classes 0, 1, ..., C-1. Every other column is a feature,
// unless [LoadOptions].Ignore leaves it out. [Load] and [Parse] stream the
// file with encoding/csv, so memory use is proportional to the data, and
// they accept the usual variations found in real files: a UTF-8
// byte-order mark, CRLF line endings, quoted cells, spaces around cells
// and blank lines. Every problem with the input is reported as an
// *[Error] that names the file, the 1-based physical line (the header is
// line 1), the column and the offending value, and suggests a fix in
// terms of [LoadOptions]' fields (LoadOptions.Target, LoadOptions.Types,
// LoadOptions.Ignore, LoadOptions.DropMissing), which the quce command
// names by its flags. [Dataset].Lines keeps the line of every row.
//
// # Column types
//
// Each feature column has a [ColumnType]. Unless [LoadOptions].Types
// declares it (the -types flag, parsed by [ParseTypes]), it is detected
// from the values:
//
//   - every cell a number: [Binary] if there are exactly two distinct
//     values, else [Integer] if every value is an integer, else
//     [Continuous];
//   - any cell text: [Binary] if there are exactly two distinct values,
//     else [Categorical] (at most [MaxCategories] categories).
//
// Numbers are compared by value ("1.0" is "1"). A column that is not
// declared and whose values are all distinct integers, or all distinct
// and partly text, over 20 rows or more, looks like an identifier and is
// refused: leave it out with LoadOptions.Ignore, or declare its type if it is a real
// measurement. [Ordinal] is only declared, with its levels lowest first;
// [Categorical] may be declared on a column of numbers. A cell that does
// not fit its declared type is an error, and so is a number beyond
// float32's range, in which the models compute. A categorical column with
// one value in every row is left out, as if ignored, and named in
// [Dataset].Constant: it cannot tell rows apart, and a one-hot block of one
// input cannot move. Text that is not UTF-8 is an error (in the header or
// a cell that is read).
//
// Missing values are empty cells and NA, N/A, ?, NaN and null in any case
// ("none" is a value). They are an error, unless [LoadOptions].DropMissing
// drops their rows (counted in [Dataset].Dropped). Ignored columns are not
// read, so they may have missing values.
//
// # Encoding
//
// The model's inputs, [Dataset].Features and the rows of [Dataset].X, are
// column by column in file order (the target and ignored columns left
// out):
//
//   - Continuous and Integer: the value;
//   - Binary: the number itself if both values are numbers (a 1/2 column
//     stays 1/2), else 0 or 1, the index of the value in the column's
//     Levels (sorted, so no/yes is 0/1);
//   - Ordinal: the rank 0..k-1 in the declared order;
//   - Categorical: a one-hot block of len(Levels) inputs named
//     "column=level", the levels sorted by number if all are numbers,
//     else in byte order.
//
// A model of one's own (an ONNX file, say) must take its inputs in this
// order and form. X is in original units; [Scaler] standardises it. A
// data set of numbers only loads as it always has: one input per column,
// X the values as read. [Dataset].Columns describes each column and its
// place among the inputs; [Column.Format] and [Column.Value] decode a row
// (a counterfactual, say) into the data's own terms, [Dataset.EncodeRecord]
// encodes cells given as text, [SumColumns] adds up a per-input vector
// (an attribution) per column, and [Dataset.Summary] describes the
// columns in one line each. [SeenCombinations] records the pairs of
// category values that a set of rows holds, and [Combinations.Unseen]
// names the values of a changed row that pair as none of them does.
//
// # Classes
//
// Target values that are numerically equal ("1", "1.0") are the same
// class. If every target value is a number, the classes are sorted by
// value ("9" before "10"), so a 0/1 target keeps its mapping and a 0/1/2
// target keeps its numbers; otherwise they are sorted by text (byte
// order, so "B" before "a"). Class 0 is the first in that order.
// [Dataset].Labels keeps the original text of each class (the first
// spelling seen) and [Dataset.NumClasses] is their number.
//
// # Embedded data
//
// [WBC] returns the embedded Wisconsin Diagnostic Breast Cancer data set
// (569 rows, 30 continuous features, target 1 = benign, 0 = malignant, the
// coding used by scikit-learn), [GermanCredit] the Statlog German Credit
// data set (1000 rows, 13 text and 7 numeric features, target 0 = good,
// 1 = bad credit risk). See README.md in this directory for their
// provenance and licence (CC BY 4.0).
//
// [Split] makes a seeded, stratified, deterministic train/test split (and
// refuses a class with a single row, which cannot be in both); a split the
// data give instead, a column's (LoadOptions.SplitColumn) or two files'
// ([LoadSplit]), is the [Partition] in [Dataset].Split. And
// [Scaler] standardises features using statistics fitted on the training
// rows only ([Dataset.FitScaler] leaves one-hot inputs at 0 and 1).
// [ToFloat32] and [ToFloat64] convert between precisions.
package data
