//! The `--plot` chart: throughput against size (log scale), one panel per workload, one
//! line per backend.

use std::path::Path;

use plotters::prelude::*;

use super::bench::{Stat, Table};
use super::{fail, Outcome};

const PANEL_WIDTH: u32 = 900;
const PANEL_HEIGHT: u32 = 420;

pub fn write_svg(path: &Path, tables: &[Table], stat: Stat) -> Outcome {
    let mut svg = String::new();
    draw(&mut svg, tables, stat)
        .map_err(|e| fail!("{}: cannot draw the chart: {e}", path.display()))?;
    super::io::write_output(Some(&path.to_path_buf()), |out| {
        out.write_all(svg.as_bytes())
    })
}

fn draw(svg: &mut String, tables: &[Table], stat: Stat) -> Result<(), Box<dyn std::error::Error>> {
    let height = PANEL_HEIGHT * tables.len().max(1) as u32;
    let root = SVGBackend::with_string(svg, (PANEL_WIDTH, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((tables.len().max(1), 1));
    for (panel, table) in panels.iter().zip(tables) {
        let series: Vec<(&str, Vec<(f64, f64)>)> = table
            .rows
            .iter()
            .enumerate()
            .map(|(r, (name, _))| {
                let points = table
                    .sizes
                    .iter()
                    .enumerate()
                    .filter_map(|(s, &size)| Some((size as f64, table.throughput(r, s, stat)?)))
                    .collect();
                (*name, points)
            })
            .collect();
        let x_min = table.sizes.iter().copied().min().unwrap_or(1) as f64;
        let x_max = (table.sizes.iter().copied().max().unwrap_or(2) as f64).max(x_min * 2.0);
        let y_max = series
            .iter()
            .flat_map(|(_, p)| p.iter().map(|&(_, y)| y))
            .fold(1.0f64, f64::max)
            * 1.1;
        let mut chart = ChartBuilder::on(panel)
            .caption(
                format!("{}: M elements/s", table.kind.title()),
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((x_min..x_max).log_scale(), 0.0..y_max)?;
        chart
            .configure_mesh()
            .x_desc("elements")
            .y_desc("M elements/s")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .draw()?;
        for (i, (name, points)) in series.into_iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(points, color.stroke_width(2)))?
                .label(name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}
