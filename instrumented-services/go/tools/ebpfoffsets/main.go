// Command ebpfoffsets extends go.opentelemetry.io/auto's struct-offset table
// (internal/pkg/inject/offset_results.json) with the Go version that built a
// target binary, using the offsets read from that binary's own DWARF.
//
// Why: go.opentelemetry.io/auto v0.24.0 looks std struct offsets up by exact
// Go version and its table stops at go1.26.2; the toolchain here is newer, so
// the agent refuses the target ("offset not found"). Rather than guessing,
// this reads the real offsets of every std field the table knows from the
// target's DWARF and records them under the target's Go version. Fields the
// target does not contain (unused packages) are left alone: probes needing
// them are not loaded for this target anyway.
//
// Usage: ebpfoffsets <offset_results.json> <target binary>
package main

import (
	"debug/buildinfo"
	"debug/dwarf"
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

type offsetEntry struct {
	Offset   *uint64  `json:"offset"`
	Versions []string `json:"versions"`
}

type field struct {
	Field   string         `json:"field"`
	Offsets []*offsetEntry `json:"offsets"`
}

type strct struct {
	Struct string   `json:"struct"`
	Fields []*field `json:"fields"`
}

type pkg struct {
	Package string   `json:"package"`
	Structs []*strct `json:"structs"`
}

type module struct {
	Module   string `json:"module"`
	Packages []*pkg `json:"packages"`
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: ebpfoffsets <offset_results.json> <target binary>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "ebpfoffsets:", err)
		os.Exit(1)
	}
}

func run(jsonPath, bin string) error {
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		return err
	}
	ver := strings.TrimPrefix(bi.GoVersion, "go")

	raw, err := os.ReadFile(jsonPath)
	if err != nil {
		return err
	}
	var mods []*module
	if err := json.Unmarshal(raw, &mods); err != nil {
		return err
	}

	offs, err := dwarfOffsets(bin)
	if err != nil {
		return err
	}

	var added, matched, mismatched, absent int
	for _, m := range mods {
		if m.Module != "std" {
			continue
		}
		for _, p := range m.Packages {
			for _, s := range p.Structs {
				for _, f := range s.Fields {
					off, ok := offs[p.Package+"."+s.Struct][f.Field]
					if !ok {
						absent++
						continue
					}
					if e := entryWith(f, ver); e != nil {
						if e.Offset != nil && *e.Offset == off {
							matched++
						} else {
							mismatched++
							fmt.Fprintf(os.Stderr, "ebpfoffsets: %s.%s.%s: table says %v for go%s, DWARF says %d\n",
								p.Package, s.Struct, f.Field, e.Offset, ver, off)
						}
						continue
					}
					var dst *offsetEntry
					for _, e := range f.Offsets {
						if e.Offset != nil && *e.Offset == off {
							dst = e
							break
						}
					}
					if dst == nil {
						o := off
						dst = &offsetEntry{Offset: &o}
						f.Offsets = append(f.Offsets, dst)
					}
					dst.Versions = append(dst.Versions, ver)
					added++
				}
			}
		}
	}
	if mismatched > 0 {
		return fmt.Errorf("%d offsets in the table disagree with the DWARF of %s", mismatched, bin)
	}
	out, err := json.MarshalIndent(mods, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(jsonPath, append(out, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("ebpfoffsets: go%s: %d std offsets added from DWARF, %d already present and equal, %d fields not in the target\n",
		ver, added, matched, absent)
	return nil
}

func entryWith(f *field, ver string) *offsetEntry {
	for _, e := range f.Offsets {
		for _, v := range e.Versions {
			if v == ver {
				return e
			}
		}
	}
	return nil
}

// dwarfOffsets maps "pkg/path.Struct" to field name to byte offset.
func dwarfOffsets(bin string) (map[string]map[string]uint64, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		return nil, fmt.Errorf("%s has no DWARF (built with -ldflags=-w?): %w", bin, err)
	}
	res := map[string]map[string]uint64{}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		if e.Tag != dwarf.TagStructType || !e.Children {
			continue
		}
		name, _ := e.Val(dwarf.AttrName).(string)
		fields := map[string]uint64{}
		for {
			c, err := r.Next()
			if err != nil {
				return nil, err
			}
			if c == nil || c.Tag == 0 {
				break
			}
			if c.Tag == dwarf.TagMember {
				fn, _ := c.Val(dwarf.AttrName).(string)
				if loc, ok := c.Val(dwarf.AttrDataMemberLoc).(int64); ok {
					fields[fn] = uint64(loc)
				}
			}
			if c.Children {
				r.SkipChildren()
			}
		}
		if name != "" {
			res[name] = fields
		}
	}
	return res, nil
}
