// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {IERC20Minimal, TokenTransfer} from "./LaunchTypes.sol";

/// @title VestingVault
/// @notice Vested launch allocations of a historical suite. The factory registers a staircase schedule
/// once per (token, beneficiary) and hands over the tokens; anyone may then claim the unlocked part,
/// which always goes to the beneficiary. No admin.
contract VestingVault {
    struct UnlockPoint {
        uint64 timestamp;
        uint128 cumulativeAmount;
    }

    struct Schedule {
        uint128 total;
        uint128 claimed;
        UnlockPoint[] points;
    }

    uint256 public constant MAX_POINTS = 24;
    uint256 public constant MIN_FIRST_UNLOCK_DELAY = 1 days;

    address public immutable factory;
    mapping(address => mapping(address => Schedule)) private _schedules;

    event Registered(address indexed token, address indexed beneficiary, uint256 total, UnlockPoint[] points);
    event Claimed(address indexed token, address indexed beneficiary, uint256 amount);

    error NotFactory();
    error AlreadyRegistered();
    error InvalidSchedule();
    error NothingToClaim();

    constructor(address factory_) {
        factory = factory_;
    }

    function register(address token, address beneficiary, uint128 total, UnlockPoint[] calldata points) external {
        if (msg.sender != factory) revert NotFactory();
        Schedule storage s = _schedules[token][beneficiary];
        if (s.total != 0) revert AlreadyRegistered();
        uint256 n = points.length;
        if (total == 0 || n == 0 || n > MAX_POINTS || points[0].timestamp < block.timestamp + MIN_FIRST_UNLOCK_DELAY) {
            revert InvalidSchedule();
        }
        for (uint256 i; i < n; ++i) {
            if (i > 0 && (points[i].timestamp <= points[i - 1].timestamp
                || points[i].cumulativeAmount <= points[i - 1].cumulativeAmount)) revert InvalidSchedule();
            s.points.push(points[i]);
        }
        if (points[n - 1].cumulativeAmount != total) revert InvalidSchedule();
        s.total = total;
        emit Registered(token, beneficiary, total, points);
    }

    function getSchedule(address token, address beneficiary) external view returns (Schedule memory) {
        return _schedules[token][beneficiary];
    }

    /// @notice The vested amount (the latest passed point's cumulative amount) minus what was claimed.
    function claimable(address token, address beneficiary) public view returns (uint256) {
        Schedule storage s = _schedules[token][beneficiary];
        uint256 vested;
        for (uint256 i = s.points.length; i > 0; --i) {
            if (s.points[i - 1].timestamp <= block.timestamp) {
                vested = s.points[i - 1].cumulativeAmount;
                break;
            }
        }
        return vested - s.claimed;
    }

    function claim(address token, address beneficiary) external returns (uint256 amount) {
        amount = claimable(token, beneficiary);
        if (amount == 0) revert NothingToClaim();
        _schedules[token][beneficiary].claimed += uint128(amount);
        TokenTransfer.send(token, beneficiary, amount);
        emit Claimed(token, beneficiary, amount);
    }
}
