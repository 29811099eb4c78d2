// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {ClaimPayout} from "./ClaimPayout.sol";

/// @title DividendDistributor
/// @notice Dividends of tax launches, in the pool's quote currency. Every tax token reports balance
/// changes here; a holder's recorded shares are its balance when that is at least the launch's minimum
/// holding, else 0, and system addresses (PoolManager, hook, factory, this, 0xdEaD) never hold shares.
/// Accounting is allocation-time: each allocation is assigned at once, pro rata to the shares recorded at
/// that moment (a magnified per-share accumulator). Claims are permissionless and always pay the holder.
/// The hook mints the allocated amount to this contract as PoolManager ERC-6909 claims.
contract DividendDistributor is ClaimPayout {
    uint256 private constant MAGNITUDE = 2 ** 128;
    address public constant DEAD = 0x000000000000000000000000000000000000dEaD;

    address public immutable deployer;
    address public factory;
    address public hook;

    struct TokenState {
        bool registered;
        address currency;
        uint256 minimumHolding;
        uint256 totalShares;
        uint256 magnifiedPerShare;
        uint256 allocated;
    }

    mapping(address => TokenState) public tokenState;
    /// token => holder => recorded shares
    mapping(address => mapping(address => uint256)) public sharesOf;
    mapping(address => mapping(address => int256)) private _corrections;
    mapping(address => mapping(address => uint256)) public claimed;

    event Wired(address factory, address hook);
    event TokenRegistered(address indexed token, address currency, uint256 minimumHolding);
    event SharesUpdated(address indexed token, address indexed holder, uint256 shares);
    event DividendsAllocated(address indexed token, address currency, uint256 amount, uint256 totalShares);
    event DividendClaimed(address indexed token, address indexed holder, address currency, uint256 amount);

    error NotDeployer();
    error AlreadyWired();
    error NotFactory();
    error NotHook();
    error NoEligibleShares();
    error UnknownToken(address token);
    error NothingToClaim();

    constructor(IPoolManager poolManager_, address deployer_) ClaimPayout(poolManager_) {
        deployer = deployer_;
    }

    /// @notice Binds the distributor to its tax factory and hook, once, by the deployer.
    function wire(address factory_, address hook_) external {
        if (msg.sender != deployer) revert NotDeployer();
        if (factory != address(0)) revert AlreadyWired();
        factory = factory_;
        hook = hook_;
        emit Wired(factory_, hook_);
    }

    /// @notice Starts tracking a new tax token: dividends in `currency`, shares from `minimumHolding` up.
    function registerToken(address token, address currency, uint256 minimumHolding) external {
        if (msg.sender != factory || factory == address(0)) revert NotFactory();
        tokenState[token] = TokenState(true, currency, minimumHolding, 0, 0, 0);
        emit TokenRegistered(token, currency, minimumHolding);
    }

    /// @notice A tax token's report of the balances after a transfer; other callers change nothing.
    function onTransfer(address from, uint256 fromBalance, address to, uint256 toBalance) external {
        TokenState storage t = tokenState[msg.sender];
        if (!t.registered) return;
        _record(msg.sender, t, from, fromBalance);
        _record(msg.sender, t, to, toBalance);
    }

    /// @notice Assigns `amount` (minted to this contract by the hook) to the token's recorded shares.
    function allocate(address token, uint256 amount) external {
        if (msg.sender != hook) revert NotHook();
        TokenState storage t = tokenState[token];
        if (!t.registered) revert UnknownToken(token);
        if (t.totalShares == 0) revert NoEligibleShares();
        t.magnifiedPerShare += amount * MAGNITUDE / t.totalShares;
        t.allocated += amount;
        emit DividendsAllocated(token, t.currency, amount, t.totalShares);
    }

    /// @notice The shares eligible for the next allocation.
    function eligibleShares(address token) external view returns (uint256) {
        return tokenState[token].totalShares;
    }

    /// @notice What `holder` can claim of `token`'s dividends now.
    function claimable(address token, address holder) public view returns (uint256) {
        TokenState storage t = tokenState[token];
        int256 accrued = int256(t.magnifiedPerShare * sharesOf[token][holder]) + _corrections[token][holder];
        return uint256(accrued) / MAGNITUDE - claimed[token][holder];
    }

    /// @notice Pays `holder` its claimable dividends of `token`. Anyone may call it.
    function claim(address token, address holder) external returns (uint256 amount) {
        amount = claimable(token, holder);
        if (amount == 0) revert NothingToClaim();
        claimed[token][holder] += amount;
        address currency = tokenState[token].currency;
        _payOut(currency, holder, amount);
        emit DividendClaimed(token, holder, currency, amount);
    }

    function _record(address token, TokenState storage t, address holder, uint256 balance) private {
        if (
            holder == address(0) || holder == address(poolManager) || holder == hook || holder == factory
                || holder == address(this) || holder == DEAD
        ) return;
        uint256 shares = balance >= t.minimumHolding ? balance : 0;
        uint256 previous = sharesOf[token][holder];
        if (shares == previous) return;
        sharesOf[token][holder] = shares;
        // Keep what the holder already earned unchanged by the share change.
        if (shares > previous) {
            t.totalShares += shares - previous;
            _corrections[token][holder] -= int256(t.magnifiedPerShare * (shares - previous));
        } else {
            t.totalShares -= previous - shares;
            _corrections[token][holder] += int256(t.magnifiedPerShare * (previous - shares));
        }
        emit SharesUpdated(token, holder, shares);
    }
}
