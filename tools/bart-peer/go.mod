module fibforge/tools/bart-peer

go 1.24.0

require github.com/gaissmai/bart v0.30.0
