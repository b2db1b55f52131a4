package doclinks

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestRepositoryLinks checks every relative link of every Markdown file and notebook in the
// repository: the file it names must exist and, for an anchor into a Markdown file, the
// heading must exist too.
func TestRepositoryLinks(t *testing.T) {
	root := repoRoot(t)
	files, err := docFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"README.md", "docs/METHOD.md"} {
		if !slices.Contains(files, want) {
			t.Fatalf("the documents found under %s do not include %s: %v", root, want, files)
		}
	}
	anchors := anchorCache{}
	checked := 0
	for _, file := range files {
		docs, err := readDocument(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		for _, d := range docs {
			for _, l := range extractLinks(d.markdown) {
				checked++
				if err := checkLink(root, file, l.target, anchors); err != nil {
					t.Errorf("%s%s line %d: link %q: %v", file, d.where, l.line, l.target, err)
				}
			}
		}
	}
	t.Logf("%d links checked in %d files", checked, len(files))
}

// skipDirs are folders whose documents are not the repository's own: version control,
// installed packages, and the build outputs that .gitignore names.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "vendor": true}

// rootSkipDirs are skipped only at the top level (ignored build outputs).
var rootSkipDirs = map[string]bool{"bin": true, "out": true}

// repoRoot is the folder holding go.mod, searched upwards from the test's folder.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}

// docFiles lists the Markdown files (*.md) and notebooks (*.ipynb) under root, as sorted
// slash-separated paths relative to root. Hidden folders and skipDirs are left out.
func docFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p == root {
				return nil
			}
			if skipDirs[name] || strings.HasPrefix(name, ".") || (filepath.Dir(p) == root && rootSkipDirs[name]) {
				return filepath.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(name)) {
		case ".md", ".ipynb":
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// document is a piece of Markdown and where it came from inside its file ("" for a
// Markdown file, " cell N" for a notebook's cell).
type document struct {
	where    string
	markdown string
}

// readDocument returns a Markdown file whole, or a notebook's Markdown cells.
func readDocument(path string) ([]document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(filepath.Ext(path), ".ipynb") {
		return []document{{markdown: string(data)}}, nil
	}
	var nb struct {
		Cells []struct {
			CellType string          `json:"cell_type"`
			Source   json.RawMessage `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		return nil, fmt.Errorf("not a notebook: %w", err)
	}
	var out []document
	for i, c := range nb.Cells {
		if c.CellType != "markdown" {
			continue
		}
		src, err := cellSource(c.Source)
		if err != nil {
			return nil, fmt.Errorf("cell %d: %w", i, err)
		}
		out = append(out, document{where: fmt.Sprintf(" cell %d", i), markdown: src})
	}
	return out, nil
}

// cellSource decodes a cell's source, which nbformat allows as a string or a list of lines.
func cellSource(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		return "", fmt.Errorf("source is neither a string nor a list of strings: %w", err)
	}
	return strings.Join(lines, ""), nil
}

// link is one link target found in Markdown, with its 1-based line.
type link struct {
	line   int
	target string
}

var (
	fenceRe = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	// inlineLinkRe matches [text](target "title") and ![alt](target); the text may hold one
	// level of brackets, the target one level of parentheses or be written <like this>.
	inlineLinkRe = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^<>\n]*>|(?:[^\s()]|\([^\s()]*\))*)(?:\s+(?:"[^"]*"|'[^']*'|\([^()]*\)))?\s*\)`)
	// refDefRe matches a link reference definition: [label]: target.
	refDefRe = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*(<[^<>]*>|\S+)`)
	tagRe    = regexp.MustCompile(`<[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?>`)
	attrRe   = regexp.MustCompile(`(?i)\s(?:src|href)\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+)`)
)

// extractLinks returns the link targets of Markdown links, images, reference definitions
// and HTML src/href attributes, outside fenced code blocks and code spans.
func extractLinks(md string) []link {
	var out []link
	var fence string
	for i, line := range strings.Split(md, "\n") {
		if m := fenceRe.FindStringSubmatch(line); m != nil {
			switch {
			case fence == "":
				fence = m[1]
				continue
			case m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(line) == m[1]:
				fence = ""
				continue
			}
		}
		if fence != "" {
			continue
		}
		line = stripCodeSpans(line)
		add := func(target string) {
			target = strings.TrimSpace(target)
			if len(target) >= 2 && (target[0] == '<' && target[len(target)-1] == '>' ||
				target[0] == '"' && target[len(target)-1] == '"' || target[0] == '\'' && target[len(target)-1] == '\'') {
				target = target[1 : len(target)-1]
			}
			out = append(out, link{line: i + 1, target: target})
		}
		for _, m := range inlineLinkRe.FindAllStringSubmatch(line, -1) {
			add(m[1])
		}
		if m := refDefRe.FindStringSubmatch(line); m != nil {
			add(m[1])
		}
		for _, tag := range tagRe.FindAllString(line, -1) {
			for _, m := range attrRe.FindAllStringSubmatch(tag, -1) {
				add(m[1])
			}
		}
	}
	return out
}

// stripCodeSpans removes `code spans` (any run of backticks up to the next run of the same
// length) from one line; an unmatched run is kept as text.
func stripCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		end := -1
		for j := i + n; j < len(line); {
			if line[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(line) && line[j+m] == '`' {
				m++
			}
			if m == n {
				end = j + m
				break
			}
			j += m
		}
		if end < 0 {
			b.WriteString(line[i : i+n])
			i += n
			continue
		}
		b.WriteByte(' ')
		i = end
	}
	return b.String()
}

var schemeRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// isExternal reports whether a target leaves the repository: a URL with a scheme (http:,
// https:, mailto:, ...) or a protocol-relative //host/path.
func isExternal(target string) bool {
	return schemeRe.MatchString(target) || strings.HasPrefix(target, "//")
}

// anchorCache holds the anchors of the Markdown files read so far, by absolute path.
type anchorCache map[string]map[string]bool

func (c anchorCache) get(path string) (map[string]bool, error) {
	if a, ok := c[path]; ok {
		return a, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a := anchors(string(data))
	c[path] = a
	return a, nil
}

// checkLink checks one target found in file (slash-separated, relative to root): nil for an
// external link or one whose file (and, into a Markdown file, heading) exists.
func checkLink(root, file, target string, cache anchorCache) error {
	if target == "" {
		return fmt.Errorf("empty link target")
	}
	if isExternal(target) {
		return nil
	}
	pathPart, anchor, _ := strings.Cut(target, "#")
	pathPart, _, _ = strings.Cut(pathPart, "?")
	if p, err := url.PathUnescape(pathPart); err == nil {
		pathPart = p
	}
	if a, err := url.PathUnescape(anchor); err == nil {
		anchor = a
	}
	var abs string
	switch {
	case pathPart == "":
		abs = filepath.Join(root, filepath.FromSlash(file))
	case strings.HasPrefix(pathPart, "/"):
		abs = filepath.Join(root, filepath.FromSlash(pathPart))
	default:
		abs = filepath.Join(root, filepath.FromSlash(filepath.ToSlash(filepath.Dir(file))), filepath.FromSlash(pathPart))
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s lies outside the repository", pathPart)
	}
	shown := filepath.ToSlash(rel)
	if _, err := os.Stat(abs); err != nil {
		return fmt.Errorf("%s does not exist", shown)
	}
	if anchor == "" || !strings.EqualFold(filepath.Ext(abs), ".md") {
		return nil
	}
	a, err := cache.get(abs)
	if err != nil {
		return err
	}
	if !a[anchor] {
		return fmt.Errorf("%s has no heading with anchor #%s", shown, anchor)
	}
	return nil
}

var (
	atxRe     = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextRe  = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	blockRe   = regexp.MustCompile(`^ {0,3}([-*+>|]|\d+[.)])(\s|$)`)
	idAttrRe  = regexp.MustCompile(`(?i)\s(?:id|name)\s*=\s*("[^"]*"|'[^']*')`)
	mdLinkRe  = regexp.MustCompile(`!?\[([^\[\]]*)\]\([^()]*\)`)
	htmlTagRe = regexp.MustCompile(`<[^<>]+>`)
)

// anchors returns the anchors GitHub gives a Markdown file: one per heading (ATX and setext,
// outside fenced code, numbered -1, -2, ... when repeated) plus HTML id and name attributes.
func anchors(md string) map[string]bool {
	out := map[string]bool{}
	s := slugger{}
	var fence string
	var para []string
	for _, line := range strings.Split(md, "\n") {
		if m := fenceRe.FindStringSubmatch(line); m != nil {
			switch {
			case fence == "":
				fence, para = m[1], nil
				continue
			case m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(line) == m[1]:
				fence = ""
				continue
			}
		}
		if fence != "" {
			continue
		}
		for _, tag := range tagRe.FindAllString(line, -1) {
			for _, m := range idAttrRe.FindAllStringSubmatch(tag, -1) {
				out[m[1][1:len(m[1])-1]] = true
			}
		}
		switch {
		case strings.TrimSpace(line) == "":
			para = nil
		case atxRe.MatchString(line):
			out[s.slug(atxRe.FindStringSubmatch(line)[2])] = true
			para = nil
		case setextRe.MatchString(line):
			if len(para) > 0 {
				out[s.slug(strings.Join(para, " "))] = true
			}
			para = nil // without a paragraph above, "---" is a thematic break
		case len(para) == 0 && blockRe.MatchString(line):
			// A list item, quote or table row: an underline after it is not a heading.
			para = nil
		default:
			para = append(para, strings.TrimSpace(line))
		}
	}
	return out
}

// slugger numbers repeated slugs the way GitHub (github-slugger) does.
type slugger struct{ occurrences map[string]int }

func (s *slugger) slug(heading string) string {
	if s.occurrences == nil {
		s.occurrences = map[string]int{}
	}
	base := slugify(heading)
	result := base
	for {
		if _, taken := s.occurrences[result]; !taken {
			break
		}
		s.occurrences[base]++
		result = base + "-" + strconv.Itoa(s.occurrences[base])
	}
	s.occurrences[result] = 0
	return result
}

// slugify is GitHub's anchor for a heading's text: the rendered text (links reduced to their
// text, HTML tags dropped) in lower case, each space turned into "-", and every character
// other than a letter, digit, mark, "-" or "_" dropped.
func slugify(heading string) string {
	text := mdLinkRe.ReplaceAllString(strings.TrimSpace(heading), "$1")
	text = htmlTagRe.ReplaceAllString(text, "")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestSlugify(t *testing.T) {
	tests := []struct{ heading, want string }{
		{"What the evaluation shows on W-BC", "what-the-evaluation-shows-on-w-bc"},
		{"Choices (where the spec leaves room)", "choices-where-the-spec-leaves-room"},
		{"The authors' notebook", "the-authors-notebook"},
		{"Why our uncertainty figures differ from the paper's", "why-our-uncertainty-figures-differ-from-the-papers"},
		{"Many paths (exQUCE)", "many-paths-exquce"},
		{"The `quce` tool", "the-quce-tool"},
		{"See [the docs](docs/METHOD.md) first", "see-the-docs-first"},
		{"Speed: GoMLX backends", "speed-gomlx-backends"},
		{"λ3 sweep (static)", "λ3-sweep-static"},
		{"The ± bars", "the--bars"},
		{"snake_case and kebab-case", "snake_case-and-kebab-case"},
		{"**Bold** <em>tag</em>", "bold-tag"},
		{"  Padded  ", "padded"},
	}
	for _, tc := range tests {
		if got := slugify(tc.heading); got != tc.want {
			t.Errorf("slugify(%q) = %q; want %q", tc.heading, got, tc.want)
		}
	}
}

func TestAnchors(t *testing.T) {
	md := strings.Join([]string{
		"# Title",
		"## Usage ##",
		"## Usage",
		"### Usage",
		"```sh",
		"# not a heading",
		"```",
		"Setext heading",
		"==============",
		"- a list item",
		"---",
		"<a id=\"custom-id\"></a> <a name='old-name'>x</a>",
		"#hashtag is not a heading",
	}, "\n")
	want := map[string]bool{
		"title": true, "usage": true, "usage-1": true, "usage-2": true,
		"setext-heading": true, "custom-id": true, "old-name": true,
	}
	if got := anchors(md); !reflect.DeepEqual(got, want) {
		t.Errorf("anchors = %v; want %v", got, want)
	}
}

func TestExtractLinks(t *testing.T) {
	tests := []struct {
		name, md string
		want     []string
	}{
		{"inline", "See [the method](docs/METHOD.md#metrics).", []string{"docs/METHOD.md#metrics"}},
		{"image and title", `![plot](plots/a.svg "A plot") and [x](b.md 'B')`, []string{"plots/a.svg", "b.md"}},
		{"angle brackets", "[x](<my file.md>)", []string{"my file.md"}},
		{"parentheses in target", "[x](a_(b).md)", []string{"a_(b).md"}},
		{"brackets in text", "[see [1]](ref.md)", []string{"ref.md"}},
		{"several on a line", "[a](a.md), [b](https://example.com), [c](#c)", []string{"a.md", "https://example.com", "#c"}},
		{"reference definition", "[ref]: ../README.md#tests", []string{"../README.md#tests"}},
		{"html", `<img src="fig.png" alt="x"> <a href='docs/SPEED.md'>speed</a>`, []string{"fig.png", "docs/SPEED.md"}},
		{"autolink", "<https://example.com/x>", nil},
		{"code span", "`[not](a-link.md)` but [this](is.md)", []string{"is.md"}},
		{"double-backtick span", "``[not](x.md) ` `` [yes](y.md)", []string{"y.md"}},
		{"fenced code", "```go\n[not](x.md)\n```\n~~~\n<img src=\"y.png\">\n~~~\n[after](z.md)", []string{"z.md"}},
		{"plain brackets", "an array [1, 2] (of two)", nil},
	}
	for _, tc := range tests {
		var got []string
		for _, l := range extractLinks(tc.md) {
			got = append(got, l.target)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: extractLinks(%q) = %q; want %q", tc.name, tc.md, got, tc.want)
		}
	}
}

func TestIsExternal(t *testing.T) {
	tests := []struct {
		target string
		want   bool
	}{
		{"https://github.com/gomlx/gomlx", true},
		{"http://example.com", true},
		{"mailto:someone@example.com", true},
		{"//cdn.example.com/x.js", true},
		{"docs/METHOD.md", false},
		{"../README.md#tests", false},
		{"#anchor", false},
		{"/data/README.md", false},
	}
	for _, tc := range tests {
		if got := isExternal(tc.target); got != tc.want {
			t.Errorf("isExternal(%q) = %v; want %v", tc.target, got, tc.want)
		}
	}
}

func TestCheckLink(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", "# Top\n\n## Tests\n")
	write("docs/METHOD.md", "# Method\n\n## The VAE is trained on the Gaussian ELBO\n")
	write("notebooks/a.ipynb", "{}")
	tests := []struct {
		file, target, wantErr string
	}{
		{"README.md", "docs/METHOD.md", ""},
		{"README.md", "docs/METHOD.md#the-vae-is-trained-on-the-gaussian-elbo", ""},
		{"README.md", "docs/", ""},
		{"README.md", "#tests", ""},
		{"README.md", "https://example.com/missing.md", ""},
		{"docs/METHOD.md", "../README.md#tests", ""},
		{"docs/METHOD.md", "/README.md", ""},
		{"notebooks/a.ipynb", "../docs/METHOD.md#method", ""},
		{"notebooks/a.ipynb", "a.ipynb#anything", ""},
		{"README.md", "docs/METH%4FD.md", ""},
		{"README.md", "SPEC.md", "SPEC.md does not exist"},
		{"docs/METHOD.md", "README.md", "docs/README.md does not exist"},
		{"README.md", "docs/METHOD.md#the-vae", "docs/METHOD.md has no heading with anchor #the-vae"},
		{"README.md", "#no-such-heading", "README.md has no heading with anchor #no-such-heading"},
		{"README.md", "../outside.md", "outside the repository"},
		{"README.md", "", "empty link target"},
	}
	cache := anchorCache{}
	for _, tc := range tests {
		err := checkLink(root, tc.file, tc.target, cache)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("checkLink(%s, %q) = %v; want nil", tc.file, tc.target, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("checkLink(%s, %q) = %v; want an error containing %q", tc.file, tc.target, err, tc.wantErr)
		}
	}
}

func TestReadNotebook(t *testing.T) {
	p := filepath.Join(t.TempDir(), "n.ipynb")
	nb := `{"cells": [
 {"cell_type": "markdown", "metadata": {}, "source": ["# A\n", "[x](x.md)"]},
 {"cell_type": "code", "metadata": {}, "outputs": [], "source": ["[not](checked.md)"]},
 {"cell_type": "markdown", "metadata": {}, "source": "[y](y.md)"}
]}`
	if err := os.WriteFile(p, []byte(nb), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, err := readDocument(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []document{{" cell 0", "# A\n[x](x.md)"}, {" cell 2", "[y](y.md)"}}
	if !reflect.DeepEqual(docs, want) {
		t.Errorf("readDocument = %q; want %q", docs, want)
	}
}
