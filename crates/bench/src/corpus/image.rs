//! BMP: a 24-bit Windows bitmap (BITMAPINFOHEADER, uncompressed, bottom-up rows) of a
//! flat scene: sky and ground, then large flat rectangles, ellipses and triangles. No
//! gradients and no noise, so that equal plaintext blocks abound and AES-ECB visibly
//! leaks the picture (the "ECB penguin").

use super::Body;
use cipherlab_harness::rng::Rng;

/// File header (14) + info header (40).
pub(super) const HEADER: u64 = 54;
/// A 4x1 image.
pub(super) const MIN_SIZE: u64 = HEADER + 12;

const PALETTE: [[u8; 3]; 12] = [
    // RGB
    [20, 20, 24],
    [240, 240, 236],
    [250, 200, 40],
    [220, 60, 50],
    [40, 110, 200],
    [60, 160, 80],
    [140, 70, 160],
    [250, 140, 30],
    [100, 100, 110],
    [30, 170, 170],
    [200, 90, 140],
    [150, 110, 60],
];
const SKY: [u8; 3] = [150, 200, 235];
const GROUND: [u8; 3] = [200, 215, 190];

#[derive(Debug, Clone, Copy)]
enum Shape {
    Rect {
        x0: i64,
        y0: i64,
        x1: i64,
        y1: i64,
    },
    Ellipse {
        cx: i64,
        cy: i64,
        rx: i64,
        ry: i64,
    },
    /// Apex up at (cx, top), base from cx - half to cx + half at `bottom`.
    Triangle {
        cx: i64,
        top: i64,
        bottom: i64,
        half: i64,
    },
}

impl Shape {
    /// The columns `[from, to)` this shape covers on row `y` (top-down), if any.
    fn span(&self, y: i64) -> Option<(i64, i64)> {
        match *self {
            Shape::Rect { x0, y0, x1, y1 } => (y >= y0 && y < y1).then_some((x0, x1)),
            Shape::Ellipse { cx, cy, rx, ry } => {
                let dy = y - cy;
                if ry <= 0 || dy.abs() > ry {
                    return None;
                }
                // x-extent: rx * sqrt(1 - dy^2/ry^2), in integers.
                let inner = (rx as u128 * rx as u128) * ((ry * ry - dy * dy) as u128);
                let dx = (inner / (ry as u128 * ry as u128)).isqrt() as i64;
                Some((cx - dx, cx + dx + 1))
            }
            Shape::Triangle {
                cx,
                top,
                bottom,
                half,
            } => {
                if y < top || y >= bottom || bottom <= top {
                    return None;
                }
                let dx = half * (y - top) / (bottom - top);
                Some((cx - dx, cx + dx + 1))
            }
        }
    }
}

struct Picture {
    width: i64,
    height: i64,
    horizon: i64,
    shapes: Vec<([u8; 3], Shape)>,
    /// Row bytes (BGR), the row being emitted.
    row: Vec<u8>,
    /// Next row to compute, in file order (0 = bottom).
    next_row: i64,
    pos_in_row: usize,
}

impl Picture {
    fn new(width: i64, height: i64, mut rng: Rng) -> Picture {
        let below = |rng: &mut Rng, n: i64| rng.below(n.max(1) as u64) as i64;
        let horizon = height / 2 + below(&mut rng, height / 4 + 1);
        let count = 6 + below(&mut rng, 5);
        let unit = width.min(height).max(1);
        let mut shapes = Vec::new();
        for _ in 0..count {
            let color = PALETTE[rng.index(PALETTE.len())];
            let cx = below(&mut rng, width);
            let cy = below(&mut rng, height);
            let a = unit / 10 + below(&mut rng, unit / 4 + 1);
            let b = unit / 10 + below(&mut rng, unit / 4 + 1);
            let shape = match rng.below(3) {
                0 => Shape::Rect {
                    x0: cx - a,
                    y0: cy - b,
                    x1: cx + a,
                    y1: cy + b,
                },
                1 => Shape::Ellipse {
                    cx,
                    cy,
                    rx: a,
                    ry: b,
                },
                _ => Shape::Triangle {
                    cx,
                    top: cy - b,
                    bottom: cy + b,
                    half: a,
                },
            };
            shapes.push((color, shape));
        }
        Picture {
            width,
            height,
            horizon,
            shapes,
            row: Vec::with_capacity(3 * width as usize),
            next_row: 0,
            pos_in_row: 0,
        }
    }

    fn compute_row(&mut self) {
        // File rows run bottom-up; shapes are placed top-down.
        let y = self.height - 1 - (self.next_row % self.height.max(1));
        self.next_row += 1;
        let bg = if y < self.horizon { SKY } else { GROUND };
        let mut rgb = vec![bg; self.width as usize];
        for (color, shape) in &self.shapes {
            if let Some((from, to)) = shape.span(y) {
                let from = from.clamp(0, self.width) as usize;
                let to = to.clamp(0, self.width) as usize;
                rgb[from..to].fill(*color);
            }
        }
        self.row.clear();
        for [r, g, b] in rgb {
            self.row.extend_from_slice(&[b, g, r]);
        }
        self.pos_in_row = 0;
    }
}

impl Body for Picture {
    fn fill(&mut self, out: &mut [u8], _remaining: u64) {
        let mut i = 0;
        while i < out.len() {
            if self.pos_in_row == self.row.len() {
                self.compute_row();
            }
            let k = (self.row.len() - self.pos_in_row).min(out.len() - i);
            out[i..i + k].copy_from_slice(&self.row[self.pos_in_row..self.pos_in_row + k]);
            self.pos_in_row += k;
            i += k;
        }
    }
}

/// Width and height for a file of `size` bytes: about 4:3, width a multiple of 4 (so
/// rows need no padding), filling the file but for fewer than `3 * width` bytes.
pub(super) fn dimensions(size: u64) -> (u64, u64) {
    let avail = size.max(MIN_SIZE) - HEADER;
    let pixels = avail / 3;
    let width = ((pixels * 4 / 3).isqrt() / 4 * 4).max(4);
    let height = (avail / (3 * width)).max(1);
    (width, height)
}

/// Header (with the gap that makes the pixel array end exactly at the end of the file)
/// and the picture.
pub(super) fn bmp(size: u64, rng: Rng) -> (Vec<u8>, Box<dyn Body + Send>) {
    let (width, height) = dimensions(size);
    let image = 3 * width * height;
    let file = size.max(MIN_SIZE);
    let gap = file - HEADER - image;
    let sat = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    let mut h = Vec::with_capacity((HEADER + gap) as usize);
    h.extend_from_slice(b"BM");
    h.extend_from_slice(&sat(file).to_le_bytes());
    h.extend_from_slice(&[0; 4]); // reserved
    h.extend_from_slice(&sat(HEADER + gap).to_le_bytes()); // pixel array offset
    h.extend_from_slice(&40u32.to_le_bytes()); // BITMAPINFOHEADER
    h.extend_from_slice(&(width as i32).to_le_bytes());
    h.extend_from_slice(&(height as i32).to_le_bytes()); // positive: bottom-up
    h.extend_from_slice(&1u16.to_le_bytes()); // planes
    h.extend_from_slice(&24u16.to_le_bytes()); // bits per pixel
    h.extend_from_slice(&0u32.to_le_bytes()); // BI_RGB
    h.extend_from_slice(&sat(image).to_le_bytes());
    h.extend_from_slice(&2835u32.to_le_bytes()); // 72 dpi
    h.extend_from_slice(&2835u32.to_le_bytes());
    h.extend_from_slice(&0u32.to_le_bytes()); // colours used
    h.extend_from_slice(&0u32.to_le_bytes()); // important colours
    h.resize((HEADER + gap) as usize, 0);
    (h, Box::new(Picture::new(width as i64, height as i64, rng)))
}
