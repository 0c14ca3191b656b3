"""Path planning for the mobile base on a 2-D occupancy grid (ROS-free, no PyBullet).

Obstacles are axis-aligned boxes on the floor (furniture, objects lying on the floor, anything placed
in the way), grown by the robot's radius. A goal in line of sight gets the straight line; otherwise
A* over the 8-connected grid, shortened by line-of-sight. ``plan_path`` returns None when the goal
lies in an obstacle or cannot be reached: navigation then fails without moving.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# An obstacle's footprint: (min_x, min_y, max_x, max_y) in metres.
Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class OccupancyGrid:
    """Free (False) and occupied (True) cells of ``resolution`` metres; cell (0, 0) has its corner at origin."""

    cells: np.ndarray
    origin: tuple[float, float]
    resolution: float

    @classmethod
    def of_boxes(cls, boxes: Sequence[Box], inflation: float, bounds: Box, resolution: float = 0.05) -> OccupancyGrid:
        columns = math.ceil((bounds[2] - bounds[0]) / resolution)
        rows = math.ceil((bounds[3] - bounds[1]) / resolution)
        cells = np.zeros((columns, rows), dtype=bool)
        xs = bounds[0] + (np.arange(columns) + 0.5) * resolution
        ys = bounds[1] + (np.arange(rows) + 0.5) * resolution
        for min_x, min_y, max_x, max_y in boxes:
            # Distance from each cell centre to the box (0 inside): the box grown by a rounded margin.
            dx = np.maximum(np.maximum(min_x - xs, xs - max_x), 0.0)[:, None]
            dy = np.maximum(np.maximum(min_y - ys, ys - max_y), 0.0)[None, :]
            cells |= dx**2 + dy**2 < inflation**2
        return cls(cells, (bounds[0], bounds[1]), resolution)

    def cell(self, x: float, y: float) -> tuple[int, int] | None:
        i = int((x - self.origin[0]) / self.resolution)
        j = int((y - self.origin[1]) / self.resolution)
        if 0 <= i < self.cells.shape[0] and 0 <= j < self.cells.shape[1]:
            return (i, j)
        return None

    def center(self, cell: tuple[int, int]) -> tuple[float, float]:
        return (
            self.origin[0] + (cell[0] + 0.5) * self.resolution,
            self.origin[1] + (cell[1] + 0.5) * self.resolution,
        )

    def free(self, cell: tuple[int, int]) -> bool:
        return not self.cells[cell]

    def line_free(self, a: tuple[float, float], b: tuple[float, float]) -> bool:
        """True when every cell along the segment a-b is free (sampled at half the resolution)."""
        steps = max(1, int(math.hypot(b[0] - a[0], b[1] - a[1]) / (self.resolution / 2)))
        for k in range(steps + 1):
            t = k / steps
            cell = self.cell(a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
            if cell is None or not self.free(cell):
                return False
        return True


class NoPathError(RuntimeError):
    """No collision-free path: the goal lies in an obstacle, outside the map, or is walled off."""


def plan_path(grid: OccupancyGrid, start: tuple[float, float], goal: tuple[float, float]) -> list[tuple[float, float]]:
    """Waypoints from start to goal (start excluded, goal last); NoPathError says why there are none.

    The robot may be touching an inflated obstacle where it stands (it parked close to a counter), so
    cells within two cells of the start count as free.
    """
    goal_cell, start_cell = grid.cell(*goal), grid.cell(*start)
    if start_cell is None:
        raise NoPathError(f"the robot at ({start[0]:.2f}, {start[1]:.2f}) is outside the map")
    if goal_cell is None:
        raise NoPathError(f"goal ({goal[0]:.2f}, {goal[1]:.2f}) is outside the map")
    if not grid.free(goal_cell):
        raise NoPathError(f"goal ({goal[0]:.2f}, {goal[1]:.2f}) is inside an obstacle (grown by the robot's radius)")
    cells = grid.cells.copy()
    si, sj = start_cell
    cells[max(0, si - 2) : si + 3, max(0, sj - 2) : sj + 3] = False
    grid = OccupancyGrid(cells, grid.origin, grid.resolution)
    if grid.line_free(start, goal):
        return [goal]
    previous = _astar(grid, start_cell, goal_cell)
    if previous is None:
        raise NoPathError(f"no collision-free path to ({goal[0]:.2f}, {goal[1]:.2f}): the way is blocked")
    chain = [goal_cell]
    while chain[-1] != start_cell:
        chain.append(previous[chain[-1]])
    points = [grid.center(cell) for cell in reversed(chain[:-1])]
    points[-1] = goal
    return _shortcut(grid, start, points)


def _astar(
    grid: OccupancyGrid, start: tuple[int, int], goal: tuple[int, int]
) -> dict[tuple[int, int], tuple[int, int]] | None:
    steps = [(di, dj, math.hypot(di, dj)) for di in (-1, 0, 1) for dj in (-1, 0, 1) if di or dj]
    shape = grid.cells.shape
    cost = {start: 0.0}
    previous: dict[tuple[int, int], tuple[int, int]] = {}
    queue = [(0.0, start)]
    while queue:
        _, cell = heapq.heappop(queue)
        if cell == goal:
            return previous
        for di, dj, length in steps:
            nxt = (cell[0] + di, cell[1] + dj)
            if not (0 <= nxt[0] < shape[0] and 0 <= nxt[1] < shape[1]) or grid.cells[nxt]:
                continue
            new_cost = cost[cell] + length
            if new_cost < cost.get(nxt, math.inf):
                cost[nxt] = new_cost
                previous[nxt] = cell
                heapq.heappush(queue, (new_cost + math.hypot(goal[0] - nxt[0], goal[1] - nxt[1]), nxt))
    return None


def _shortcut(
    grid: OccupancyGrid, start: tuple[float, float], points: list[tuple[float, float]]
) -> list[tuple[float, float]]:
    """Drop waypoints that the robot can skip in a straight line."""
    result: list[tuple[float, float]] = []
    here = start
    index = 0
    while index < len(points):
        furthest = index
        for candidate in range(len(points) - 1, index, -1):
            if grid.line_free(here, points[candidate]):
                furthest = candidate
                break
        result.append(points[furthest])
        here = points[furthest]
        index = furthest + 1
    return result
