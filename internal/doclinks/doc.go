// Package doclinks holds only a test: every relative link in the repository's Markdown files
// (README.md, docs/, data/README.md, ...) and in the Markdown cells of notebooks/*.ipynb must
// name a file that exists, and a link with an anchor into a Markdown file must name one of that
// file's headings (GitHub's anchor rules). Run it with go test ./internal/doclinks.
package doclinks
